import Foundation
import StenoCore
import StenoInfrastructure
import StenoMedia
import StenoVoice

/// `steno-bench voice FILE MODEL [ROUNDS]`: how fast the speech detector reads a recording on one
/// core. Each round decodes the file once with no analysis (the floor every chapter job pays
/// anyway) and once with the Silero detector; the difference is the detector's own time. The
/// best round counts. bench/voice/voice runs onnxruntime on the same samples beside it.
enum VoiceSpeed {
    /// Reads every block and keeps nothing: the decode alone.
    struct Nothing: AudioAnalysis {
        var samples = 0
        mutating func append(_ block: UnsafeBufferPointer<Int16>) { samples += block.count }
        mutating func finish() -> Int { samples }
    }

    static func run(_ arguments: [String]) async throws {
        guard arguments.count >= 2 else {
            FileHandle.standardError.write(Data("usage: steno-bench voice FILE MODEL [ROUNDS]\n".utf8))
            exit(2)
        }
        let path = arguments[0]
        let model = try SileroModel(contentsOf: arguments[1])
        let rounds = arguments.count > 2 ? argument { () throws(SettingProblem) in try SettingValue.integer(arguments[2], name: "the rounds argument", in: 1...1000) } : 3
        let duration = try require(try await MediaFile.probe(.file(path: path)).duration)
        let range = MediaTime.zero..<duration
        let clock = ContinuousClock()
        var best: (decode: Double, detect: Double) = (.infinity, .infinity)
        var speech = 0.0
        for round in 1...rounds {
            let file = MediaFile(.file(path: path))
            let decodeStart = clock.now
            _ = try await file.analyze(range) { _, _ in Nothing() }
            let decode = seconds(clock.now - decodeStart)
            let detectStart = clock.now
            let activity = try await file.analyze(range) { start, samples in SileroDetector(model: model, start: start, expectedSamples: samples) }
            let both = seconds(clock.now - detectStart)
            await file.close()
            speech = activity.speech().reduce(0) { $0 + $1.upperBound - $1.lowerBound }
            print(String(format: "round %d: decode alone %.2f s, decode + detector %.2f s, detector %.2f s", round, decode, both, both - decode))
            if both - decode < best.detect { best = (decode, both - decode) }
        }
        let audio = duration.seconds
        print(String(format: "audio %.1f s, speech found %.1f s; detector %.2f s on one core: %.0fx real time (decode alone %.0fx)",
                     audio, speech, best.detect, audio / best.detect, audio / best.decode))
    }
}

private struct MissingDuration: Error, CustomStringConvertible {
    var description: String { "the file declares no duration" }
}

private func require<T>(_ value: T?) throws -> T {
    guard let value else { throw MissingDuration() }
    return value
}
