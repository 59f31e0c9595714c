import Foundation
import StenoCore
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
        let probabilities = SileroDetector.probabilities(of: Self.toneBursts(), model: model)
        #expect(probabilities.count == Self.reference.count)
        for (index, (got, expected)) in zip(probabilities, Self.reference).enumerated() {
            #expect(abs(got - expected) <= 1e-5 + 1e-3 * expected, "window \(index): \(got), onnxruntime \(expected)")
        }
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
