import Foundation
import StenoCore
import StenoMedia
import StenoTestSupport
import Testing

@testable import StenoVoice

/// The speaker encoder against the reference implementation: Resemblyzer 0.1.4's
/// `VoiceEncoder.forward` on torch, with librosa 0.11's mel spectrogram, on the same samples
/// (`bench/speakers/reference/make-reference-embeddings.py` wrote the fixtures).
@Suite("Speaker encoder forward pass")
struct SpeakerEncoderTests {
    struct Reference: Decodable {
        struct Piece: Decodable {
            var file: String
            var start: Int
            var end: Int
            var frames: Int
            var embedding: [Float]
        }
        var pieces: [Piece]
        var mel_of_first_piece: [[Float]]
    }

    static let fixtures = PackageRoot.url.appendingPathComponent("Tests/Fixtures/voices")
    static let model = Result { try SpeakerEncoderModel(contentsOf: SpeakerModelFile.path) }

    static func reference(_ name: String) throws -> Reference {
        try JSONDecoder().decode(Reference.self, from: Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    static func samples(_ file: URL, _ piece: Reference.Piece) async throws -> [Float] {
        let range = MediaTime(samples: Int64(piece.start), rate: 16_000)..<MediaTime(samples: Int64(piece.end), rate: 16_000)
        let decoded = try await MediaFile(MediaLocation(file.path)).decode(range)
        return decoded.map { Float($0) / 32768 }
    }

    /// Largest difference from the reference, and the cosine similarity of the two vectors.
    static func compare(_ got: [Float], _ expected: [Float]) -> (difference: Float, cosine: Float) {
        let difference = zip(got, expected).map { abs($0 - $1) }.max() ?? .infinity
        return (difference, SpeakerClustering.dot(SpeakerClustering.normalized(got), SpeakerClustering.normalized(expected)))
    }

    func check(_ reference: Reference, in directory: URL) async throws {
        let encoder = SpeakerEncoder(model: try Self.model.get())
        var pieces: [[Float]] = []
        for piece in reference.pieces { pieces.append(try await Self.samples(directory.appendingPathComponent(piece.file), piece)) }
        #expect(pieces.map(\.count) == reference.pieces.map { $0.end - $0.start })
        // The mel spectrogram: within 1e-4 of the largest value (float32 DFT by matrix product
        // against librosa's FFT).
        let mel = encoder.melFrames(of: pieces[0])
        let expectedMel = reference.mel_of_first_piece.flatMap { $0 }
        #expect(mel.count == expectedMel.count)
        let scale = expectedMel.map(abs).max() ?? 1
        let melDifference = zip(mel, expectedMel).map { abs($0 - $1) }.max() ?? .infinity
        #expect(melDifference <= 1e-4 * scale, "mel differs by \(melDifference) (largest value \(scale))")
        // Every piece in one batch, as the worker runs them: lengths differ, so this also checks
        // that a piece that ends early keeps its final state.
        let embeddings = encoder.embeddings(of: pieces, normalizingVolume: false)
        for (index, (got, piece)) in zip(embeddings, reference.pieces).enumerated() {
            #expect(MelSpectrogram.frameCount(samples: piece.end - piece.start) == piece.frames)
            let (difference, cosine) = Self.compare(got, piece.embedding)
            #expect(difference <= 1e-4, "piece \(index): largest difference \(difference)")
            #expect(cosine >= 0.99999, "piece \(index): cosine \(cosine)")
        }
        // One at a time gives the same as in a batch.
        for (index, piece) in pieces.enumerated() {
            let alone = encoder.embeddings(of: [piece], normalizingVolume: false)[0]
            #expect(Self.compare(alone, embeddings[index]).difference <= 1e-5)
        }
    }

    @Test("matches the reference on synthetic voices (flite, espeak-ng) and near-silence, pieces of 0.5 to 3 s in one batch")
    func syntheticVoices() async throws {
        try await check(try Self.reference("synthetic-reference-embeddings.json"), in: Self.fixtures)
    }

    @Test("matches the reference on real LibriSpeech voices", .enabled(if: RealVoices.directory != nil, "no real voices: set STENO_VOICES_DIR or put them in ../shared/voices"))
    func realVoices() async throws {
        try await check(try Self.reference("reference-embeddings.json"), in: try #require(RealVoices.directory))
    }

    @Test("reads every tensor of the checkpoint Resemblyzer's wheel ships")
    func checkpointShapes() throws {
        let model = try Self.model.get()
        #expect(model.layers.map(\.inputSize) == [40, 256, 256])
        #expect(model.layers.allSatisfy { $0.inputWeights.count == 1024 * $0.inputSize && $0.recurrentWeights.count == 1024 * 256 })
        #expect(model.linearWeights.count == 256 * 256)
        let parameters = model.layers.reduce(0) { $0 + $1.inputWeights.count + $1.recurrentWeights.count + 2 * 1024 } + 256 * 256 + 256
        // 1,423,618 in the state dict, less the two similarity scalars used only in training.
        #expect(parameters == 1_423_616)
    }

    @Test("a file that is not the checkpoint fails with a message that names the fix")
    func foreignFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-model-\(UUID().uuidString).pt").path
        try Data("not a torch file".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            _ = try SpeakerEncoderModel(contentsOf: path)
        } throws: { error in
            "\(error)".contains("scripts/speaker-model")
        }
        #expect {
            _ = try SpeakerEncoderModel(contentsOf: "/nonexistent/model.pt")
        } throws: { error in
            (error as? VoiceModelError)?.code == .missingModel && "\(error)".contains("scripts/speaker-model")
        }
    }
}

@Suite("Speaker encoder under concurrency")
struct SpeakerEncoderConcurrencyTests {
    @Test("eight threads embedding at once get what one thread gets, and all finish")
    func eightThreadsAtOnce() async throws {
        let encoder = SpeakerEncoder(model: try SpeakerEncoderTests.model.get())
        var state: UInt64 = 7
        let pieces = (0..<24).map { index in
            (0..<(8_000 + 1_000 * index)).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1
                return Float(Int64(bitPattern: state) >> 40) / Float(1 << 24) * 0.1
            }
        }
        let alone = encoder.embeddings(of: pieces)
        let results = await withTaskGroup(of: [[Float]].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    await withCheckedContinuation { continuation in
                        Thread { continuation.resume(returning: (0..<5).map { _ in encoder.embeddings(of: pieces) }.last!) }.start()
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 8)
        for result in results {
            #expect(zip(result, alone).allSatisfy { zip($0, $1).allSatisfy { abs($0 - $1) <= 1e-6 } })
        }
    }
}
