import Foundation
import StenoCore
import StenoMedia
import Testing

@Suite struct EncodeTests {
    /// Writes `data` to a temporary file (only to let ffprobe and a second MediaFile read it back).
    private func readBack(_ chunk: EncodedChunk) async throws -> (info: MediaInfo, samples: [Int16]) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("steno-chunk-\(UUID().uuidString).\(chunk.format.fileExtension)")
        try Data(chunk.data).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let file = MediaFile(.file(path: url.path))
        let info = try await file.probe()
        let duration = try #require(info.duration)
        return (info, try await file.decode(.zero..<duration))
    }

    @Test func flacChunkIsLossless16BitWithExactLength() async throws {
        let file = MediaFile(.file(path: try Fixtures.path("book.m4b")))
        let chapter = try #require(try await file.probe().chapters.dropFirst().first)
        let range = chapter.start..<chapter.end
        let chunk = try await file.encode(range, format: .flac)
        #expect(Array(chunk.data.prefix(4)) == Array("fLaC".utf8))
        let expected = range.upperBound.sampleIndex(rate: 16_000) - range.lowerBound.sampleIndex(rate: 16_000)
        #expect(chunk.samples == expected)
        let (info, samples) = try await readBack(chunk)
        #expect(info.audio.codec == "flac" && info.audio.sampleRate == 16_000 && info.audio.channels == 1)
        // STREAMINFO was rewritten through the seekable memory output: the exact sample count.
        #expect(info.duration == MediaTime(samples: expected, rate: 16_000))
        // Lossless: the same samples as a decode on a fresh input. (A second decode on the same
        // input differs by ±1 in places: the AAC decoder's noise-substitution state survives a flush.)
        let fresh = try await MediaFile(.file(path: try Fixtures.path("book.m4b"))).decode(range)
        #expect(samples.count == fresh.count)
        #expect(samples.elementsEqual(fresh), "FLAC round trip changed \(zip(samples, fresh).filter { $0 != $1 }.count) samples")
    }

    @Test func opusChunkDecodesToTheSameLength() async throws {
        let file = MediaFile(.file(path: try Fixtures.path("book.mp3")))
        let range = MediaTime(seconds: 2)..<MediaTime(seconds: 12)
        let chunk = try await file.encode(range, format: .opus(bitsPerSecond: 24_000))
        #expect(Array(chunk.data.prefix(4)) == Array("OggS".utf8))
        // 24 kbit/s for 10 s is about 30 kB; far below FLAC.
        #expect(chunk.data.count < 45_000)
        let (info, samples) = try await readBack(chunk)
        #expect(info.audio.codec == "opus")
        // Ogg Opus ends on a whole 20 ms frame unless the demuxer trims the last page's end;
        // FFmpeg 5.1 leaves up to one frame (320 samples at 16 kHz) of padding.
        #expect(samples.count >= 160_000 && samples.count <= 160_320, "\(samples.count) samples")
    }

    @Test func chunkOverTheLimitFailsWithTheSizes() async throws {
        let file = MediaFile(.file(path: try Fixtures.path("book.m4b")))
        let error = await #expect(throws: MediaError.self) {
            try await file.encode(.zero..<MediaTime(seconds: 10), format: .flac, sizeLimit: 20_000)
        }
        #expect(error?.code == .encodedTooLarge)
        #expect(error?.failureClass == .tooLarge)
        #expect(error?.limitBytes == 20_000)
        #expect((error?.encodedBytes ?? 0) > 20_000)
    }

    @Test func oversizedChunkIsSplitAtPausesUntilEveryPieceFits() async throws {
        let file = MediaFile(.file(path: try Fixtures.path("book.m4b")))
        let duration = try #require(try await file.probe().duration)
        let whole = try await file.encode(.zero..<duration, format: .flac)
        let limit = whole.data.count * 2 / 5
        let planner = try ChunkPlanner(configuration: .init(searchWindow: MediaTime(seconds: 4), overlap: MediaTime(milliseconds: 500)))
        let chunk = PlannedChunk(index: 0, cutStart: .zero, cutEnd: duration, start: .zero, end: duration)
        let pieces = try await file.encodeSplittingIfTooLarge(chunk, planner: planner, format: .flac, sizeLimit: limit)
        #expect(pieces.count >= 3)
        for piece in pieces {
            #expect(piece.encoded.data.count <= limit)
            #expect(piece.encoded.range == piece.chunk.start..<piece.chunk.end)
        }
        #expect(pieces.first?.chunk.cutStart == .zero && pieces.last?.chunk.cutEnd == duration)
        for (left, right) in zip(pieces, pieces.dropFirst()) {
            #expect(left.chunk.cutEnd == right.chunk.cutStart)
        }
        #expect(pieces.map(\.chunk.index) == Array(0..<pieces.count))
    }
}

@Suite("Speed-up before upload")
struct SpeedUpEncodeTests {
    /// Decodes an encoded chunk back from a temporary file.
    private func decoded(_ chunk: EncodedChunk) async throws -> [Int16] {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("steno-fast-\(UUID().uuidString).flac")
        try Data(chunk.data).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let file = MediaFile(.file(path: url.path))
        let duration = try #require(try await file.probe().duration)
        return try await file.decode(.zero..<duration)
    }

    /// Upward zero crossings per second: the frequency of a pure tone.
    private func frequency(_ samples: [Int16]) -> Double {
        let crossings = zip(samples, samples.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        return Double(crossings) / (Double(samples.count) / 16_000)
    }

    @Test("1.5x and 2x play the audio that much faster and keep its pitch", arguments: [1.5, 2.0])
    func fasterSamePitch(_ speed: Double) async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("steno-tone-\(UUID().uuidString).wav")
        try Data(WAVFile.tone(duration: .seconds(6), frequency: 440)).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let file = MediaFile(.file(path: url.path))
        let range = MediaTime.zero..<MediaTime(seconds: 6)
        let chunk = try await file.encode(range, format: .flac, speed: speed)
        let samples = try await decoded(chunk)
        let expected = 6 * 16_000 / speed
        #expect(abs(Double(samples.count) - expected) <= expected * 0.01, "\(samples.count) samples, expected about \(expected)")
        #expect(abs(frequency(samples) - 440) <= 440 * 0.02, "the tone came out at \(frequency(samples)) Hz")
    }

    @Test("a speed outside atempo's range is refused before anything is decoded")
    func outOfRange() async throws {
        let file = MediaFile(.file(path: try Fixtures.path("book.m4b")))
        await #expect(throws: MediaError.self) { try await file.encode(.zero..<MediaTime(seconds: 2), speed: 200) }
    }
}
