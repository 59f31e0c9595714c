import Foundation
import StenoCore
import StenoMedia
import Testing

private func expectedCount(_ range: Range<MediaTime>) -> Int {
    Int(range.upperBound.sampleIndex(rate: 16_000) - range.lowerBound.sampleIndex(rate: 16_000))
}

/// The shift in -3...3 samples at which `part` best matches `whole` from `offset`, and the
/// residual at that shift relative to the residual one sample off (below 1 when the match is
/// sharp; the output clock rounds to the nearest 16 kHz sample, so up to half a sample of phase
/// remains, and AAC noise substitution differs between decodes).
private func bestAlignment(_ part: [Int16], in whole: [Int16], at offset: Int) -> (shift: Int, sharpness: Double) {
    // Skip the resampler's start-up; a seeked decode settles within a few hundred samples.
    let settled = 400
    let length = part.count - settled - 8
    var residuals: [Int: Double] = [:]
    for shift in -3...3 {
        let reference = whole[(offset + settled + shift)..<(offset + settled + shift + length)]
        let difference = zip(part[settled..<(settled + length)], reference).map { Int16(clamping: Int32($0) - Int32($1)) }
        residuals[shift] = rms(difference)
    }
    let best = residuals.min { $0.value < $1.value }!
    let neighbour = min(residuals[best.key - 1] ?? .infinity, residuals[best.key + 1] ?? .infinity)
    return (best.key, best.value / neighbour)
}

private func rms<C: Collection>(_ samples: C) -> Double where C.Element == Int16 {
    guard !samples.isEmpty else { return 0 }
    return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
}

@Suite struct DecodeTests {
    @Test("a book joined from AAC parts by stream copy decodes to its end: each part's priming is within tolerance, as for the ffmpeg CLI")
    func bookJoinedByStreamCopyDecodesWhole() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("steno-joined-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let part = directory.appendingPathComponent("part.m4a").path
        let joined = directory.appendingPathComponent("joined.m4a").path
        try #require(try Fixtures.run("/usr/bin/ffmpeg", ["-v", "error", "-stream_loop", "-1", "-i", try Fixtures.path("book.m4b"),
                                                          "-t", "60", "-ac", "1", "-c:a", "aac", "-b:a", "32k", part]).status == 0)
        try #require(try Fixtures.run("/usr/bin/ffmpeg", ["-v", "error", "-stream_loop", "9", "-i", part, "-map_chapters", "-1",
                                                          "-c", "copy", joined]).status == 0)
        let file = MediaFile(.file(path: joined))
        let duration = try #require(try await file.probe().duration)
        #expect(duration > MediaTime(seconds: 599))
        let report = try await file.decode(.zero..<duration) { _ in }
        #expect(report.samples == duration.sampleIndex(rate: 16_000))
        #expect(report.paddedSamples > 0, "the joined parts should declare a little more than they hold")
    }

    static let decodable: [(String, Bool)] = [
        ("book.m4b", false), ("book.mp3", false), ("talk.mp4", false), ("talk.mkv", false),
        ("alac.m4a", true), ("ep7.m4b", true), ("ep9.m4b", true), ("silence-1.wma", true),
        ("silence-44-s.flac", true), ("simple.mkv", true), ("bad-xing.mp3", true),
    ]

    @Test(arguments: decodable)
    func chapterRangesDecodeToExactSampleCounts(_ name: String, shared: Bool) async throws {
        let path = shared ? try Fixtures.shared(name) : try Fixtures.path(name)
        let file = MediaFile(.file(path: path))
        let info = try await file.probe()
        var total = 0
        // Reverse order makes every decode after the first seek backwards on the open input.
        for chapter in info.chapters.reversed() {
            let samples = try await file.decode(chapter.start..<chapter.end)
            #expect(samples.count == expectedCount(chapter.start..<chapter.end), "\(name) chapter \(chapter.index)")
            total += samples.count
        }
        let duration = try #require(info.duration)
        #expect(total == Int(duration.sampleIndex(rate: 16_000)))
    }

    @Test func chapterDecodesLineUpWithTheWholeDecode() async throws {
        let file = MediaFile(.file(path: try Fixtures.path("book.m4b")))
        let info = try await file.probe()
        let duration = try #require(info.duration)
        let whole = try await file.decode(.zero..<duration)
        for chapter in info.chapters.reversed() {
            let part = try await file.decode(chapter.start..<chapter.end)
            let offset = Int(chapter.start.sampleIndex(rate: 16_000))
            let alignment = bestAlignment(part, in: whole, at: offset)
            #expect(alignment.shift == 0, "chapter \(chapter.index) is off by \(alignment.shift) samples")
            #expect(alignment.sharpness < 0.9, "chapter \(chapter.index): a one-sample shift should matter")
        }
    }

    @Test func arbitraryRangeAfterSeekIsExactAndAligned() async throws {
        let file = MediaFile(.file(path: try Fixtures.path("book.mp3")))
        let whole = try await file.decode(.zero..<MediaTime(seconds: 20))
        let range = MediaTime(value: 123_456, timeBase: 1, 10_000)..<MediaTime(value: 1_777_777, timeBase: 1, 100_000)
        let part = try await file.decode(range)
        #expect(part.count == expectedCount(range))
        let offset = Int(range.lowerBound.sampleIndex(rate: 16_000))
        let alignment = bestAlignment(part, in: whole, at: offset)
        #expect(alignment.shift == 0, "off by \(alignment.shift) samples")
        #expect(alignment.sharpness < 0.9)
    }

    @Test func energyProfileFindsThePauseBetweenChapters() async throws {
        let file = MediaFile(.file(path: try Fixtures.path("book.m4b")))
        let info = try await file.probe()
        let duration = try #require(info.duration)
        let profile = try await file.energyProfile(.zero..<duration)
        #expect(profile.rms.count == (Int(duration.sampleIndex(rate: 16_000)) + 799) / 800)
        // Each chapter ends with a second of silence the fixture script added.
        let pause = profile.window(containing: info.chapters[0].end - MediaTime(milliseconds: 500))
        let speech = profile.rms[profile.window(containing: MediaTime(seconds: 1))..<profile.window(containing: MediaTime(seconds: 8))]
        #expect(profile.rms[pause] < 0.002)
        #expect(speech.reduce(0, +) / Float(speech.count) > 0.02)

        let planner = try ChunkPlanner(configuration: .init(targetDuration: MediaTime(seconds: 12), searchWindow: MediaTime(seconds: 5), overlap: MediaTime(milliseconds: 500)))
        let chunks = planner.plan(.zero..<duration, energy: profile)
        // The planner cuts in the silences at the chapter ends (10.11 s and 19.43 s), not in words.
        let cut = try #require(chunks.dropFirst().first?.cutStart)
        #expect(cut > info.chapters[0].end - MediaTime(seconds: 1) && cut < info.chapters[0].end)
    }

    @Test func blocksStreamTheRangeWithAReport() async throws {
        let file = MediaFile(.file(path: try Fixtures.path("talk.mkv")))
        let range = MediaTime(seconds: 5)..<MediaTime(seconds: 15)
        let counter = SampleCounter()
        let report = try await file.decode(range) { block in counter.add(block.count) }
        #expect(counter.total == 160_000)
        #expect(report.samples == 160_000)
        #expect(report.seeked)
    }
}

final class SampleCounter: @unchecked Sendable {
    // @unchecked: touched only from the media file's serial queue, then read after the await.
    private(set) var total = 0
    private(set) var blocks = 0
    func add(_ count: Int) { total += count; blocks += 1 }
}
