import Foundation
import StenoCore
import StenoMedia
import StenoTestSupport
import Testing

@testable import StenoVoice

@Suite("Silero forward pass")
struct SileroDetectorTests {
    /// Three seconds of a 220 + 660 Hz tone switched on and off every half second over faint
    /// noise from a fixed generator, as 16-bit samples.
    static func toneBursts() -> [Int16] {
        var state: UInt64 = 12345
        return (0..<48_000).map { n in
            let t = Double(n) / 16_000
            var value = t.truncatingRemainder(dividingBy: 1) < 0.5 ? 0.3 * sin(2 * .pi * 220 * t) + 0.1 * sin(2 * .pi * 660 * t) : 0
            state = (state &* 1_103_515_245 &+ 12345) % (1 << 31)
            value += (Double(state) / Double(1 << 31) - 0.5) * 0.02
            return Int16(max(-32768, min(32767, (value * 32767).rounded())))
        }
    }

    /// What onnxruntime 1.32.0 gave for `toneBursts()` through faster-whisper 1.2.1's own wrapper
    /// (`faster_whisper.vad.get_vad_model()`), window by window.
    static let reference: [Float] = [
        0.383416, 0.132603, 0.078983, 0.033142, 0.018867, 0.015484, 0.013124, 0.007160, 0.004523, 0.003088, 0.002885, 0.002612, 0.002897,
        0.001879, 0.001910, 0.008218, 0.004296, 0.004103, 0.005118, 0.005559, 0.001778, 0.001171, 0.000771, 0.000702, 0.000506, 0.000683,
        0.001169, 0.001333, 0.001441, 0.000882, 0.001056, 0.055700, 0.077020, 0.106541, 0.073279, 0.045427, 0.037452, 0.027253, 0.022576,
        0.015613, 0.013085, 0.011113, 0.012366, 0.011956, 0.012208, 0.008602, 0.020371, 0.002337, 0.000335, 0.000213, 0.000205, 0.000312,
        0.000226, 0.000345, 0.000365, 0.000291, 0.000259, 0.000399, 0.000394, 0.000520, 0.000413, 0.000252, 0.009208, 0.008163, 0.004714,
        0.005668, 0.008502, 0.009303, 0.008329, 0.008894, 0.007601, 0.006780, 0.006628, 0.006651, 0.009318, 0.007925, 0.008622, 0.007493,
        0.014587, 0.001058, 0.001342, 0.001646, 0.000443, 0.000267, 0.000231, 0.000194, 0.000301, 0.000164, 0.000151, 0.000226, 0.000160,
        0.000143, 0.000170, 0.001310,
    ]

    @Test("every window's probability matches onnxruntime on the same model and samples")
    func matchesTheReferenceRuntime() throws {
        let model = try SileroModel(contentsOf: VoiceModelFile.path)
        Self.expectMatches(SileroDetector.probabilities(of: Self.toneBursts(), model: model), onnxruntime: Self.reference)
    }

    /// Each window within 1e-5 plus 1e-3 of onnxruntime's probability, and on the same side of
    /// the 0.5 speech threshold.
    static func expectMatches(_ probabilities: [Float], onnxruntime reference: [Float], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(probabilities.count == reference.count, sourceLocation: sourceLocation)
        for (index, (got, expected)) in zip(probabilities, reference).enumerated() {
            #expect(abs(got - expected) <= 1e-5 + 1e-3 * expected, "window \(index): \(got), onnxruntime \(expected)", sourceLocation: sourceLocation)
            #expect((got > 0.5) == (expected > 0.5), "window \(index) is on the other side of the threshold", sourceLocation: sourceLocation)
        }
    }

    /// What onnxruntime 1.32.0 gave, through the same wrapper, for the first 3 s of
    /// `Tests/Fixtures/voices/synthetic-reference.flac` (speech: it rises above 0.99, and crosses
    /// the 0.5 threshold both ways, down to 0.46 and 0.32 in a pause and back).
    static let speechReference: [Float] = [
        0.087363, 0.021004, 0.011687, 0.005057, 0.003592, 0.002988, 0.089483, 0.755643, 0.824288, 0.855733, 0.906653, 0.913046, 0.907789,
        0.917910, 0.926954, 0.950344, 0.970397, 0.970842, 0.975762, 0.977572, 0.976474, 0.969308, 0.966710, 0.971959, 0.981988, 0.982322,
        0.979888, 0.983567, 0.974333, 0.981741, 0.982131, 0.983095, 0.985392, 0.983166, 0.983736, 0.983206, 0.982423, 0.980307, 0.981836,
        0.984794, 0.985633, 0.986778, 0.985215, 0.984012, 0.980009, 0.980327, 0.974160, 0.963518, 0.873455, 0.598453, 0.463039, 0.320655,
        0.817421, 0.980801, 0.987172, 0.986709, 0.986321, 0.986948, 0.984181, 0.894887, 0.396364, 0.727801, 0.950380, 0.985495, 0.989782,
        0.989935, 0.989705, 0.989628, 0.986568, 0.878566, 0.945708, 0.932811, 0.882125, 0.964923, 0.988284, 0.989575, 0.990241, 0.988928,
        0.985449, 0.958882, 0.892981, 0.990434, 0.991234, 0.986963, 0.953689, 0.871717, 0.981951, 0.936203, 0.853605, 0.939213, 0.991770,
        0.993059, 0.992589, 0.992280,
    ]

    @Test("speech crosses the 0.5 threshold where onnxruntime's does, window by window")
    func speechMatchesTheReferenceRuntime() async throws {
        let model = try SileroModel(contentsOf: VoiceModelFile.path)
        let file = PackageRoot.url.appendingPathComponent("Tests/Fixtures/voices/synthetic-reference.flac")
        let samples = try await MediaFile(MediaLocation(file.path)).decode(.zero..<MediaTime(seconds: 3))
        #expect(samples.count == 48_000)
        Self.expectMatches(SileroDetector.probabilities(of: samples, model: model), onnxruntime: Self.speechReference)
        #expect(Self.speechReference.contains { $0 > 0.5 } && Self.speechReference.contains { $0 < 0.5 })
    }

    @Test("blocks of any size give the same probabilities as one block")
    func blockSizeDoesNotMatter() throws {
        let model = try SileroModel(contentsOf: VoiceModelFile.path)
        let samples = Self.toneBursts()
        var whole = SileroDetector(model: model, start: .zero)
        samples.withUnsafeBufferPointer { whole.append($0) }
        var pieces = SileroDetector(model: model, start: .zero)
        var offset = 0
        for size in [1, 7, 511, 513, 4096].cycled(until: samples.count) {
            let end = min(samples.count, offset + size)
            samples[offset..<end].withUnsafeBufferPointer { pieces.append($0) }
            offset = end
            if offset == samples.count { break }
        }
        #expect(whole.finish() == pieces.finish())
    }

    @Test("a missing, truncated or foreign model file is refused with its path and what to do")
    func badModelFiles() throws {
        let missing = #expect(throws: VoiceModelError.self) { try SileroModel(contentsOf: "/nonexistent/silero.onnx") }
        #expect(missing?.code == .missingModel)
        #expect(missing?.description.contains("scripts/vad-model") == true)
        #expect(missing?.description.contains("/nonexistent/silero.onnx") == true)

        let bytes = try Data(contentsOf: URL(fileURLWithPath: VoiceModelFile.path))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("steno-vad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let truncated = directory.appendingPathComponent("truncated.onnx")
        try bytes.prefix(bytes.count / 2).write(to: truncated)
        let cut = #expect(throws: VoiceModelError.self) { try SileroModel(contentsOf: truncated.path) }
        #expect(cut?.code == .malformedModel)

        let foreign = directory.appendingPathComponent("text.onnx")
        try Data("not a model".utf8).write(to: foreign)
        let wrong = #expect(throws: VoiceModelError.self) { try SileroModel(contentsOf: foreign.path) }
        #expect(wrong.map { [.malformedModel, .unexpectedModel].contains($0.code) } == true)
    }
}

extension Array {
    /// The elements repeated in order, enough times to cover `count` items.
    fileprivate func cycled(until count: Int) -> [Element] {
        (0..<count).map { self[$0 % self.count] }
    }
}
