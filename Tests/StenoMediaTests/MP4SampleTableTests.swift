import Foundation
import StenoCore
import StenoInfrastructure
@testable import StenoMedia
import Testing
import Logging

/// A long MP4 track is read from the file's sample tables, with the demuxer shown only its head
/// (`MP4Head`). These tests read every MP4 fixture both ways, with the tables used even for short
/// tracks, and expect the same packets, the same decoded samples and the same description.
/// The files cover the `moov` after the data (most) and before it (truncated.m4b, cut at 40 %),
/// a video's interleaved chunks (talk.mp4), a book joined by stream copy with 360 runs of
/// durations (long-3h.m4a), AAC's encoder delay in an edit, and tables that do not fit their box.
@Suite struct MP4SampleTableTests {
    /// Tables for every track longer than 100 samples, with a 64-sample head: the hand-over from
    /// the demuxer to the tables happens a second or two into each file.
    static let everyTrack = SampleTableReading(tracksLongerThan: 100, headSamples: 64)

    static let files: [(String, Bool)] = [
        ("book.m4b", false), ("talk.mp4", false), ("truncated.m4b", false), ("long-3h.m4a", false),
        ("alac.m4a", true), ("ep7.m4b", true), ("nero-chapters.m4b", true),
    ]
    /// Too short for any head (40 and 87 samples), or with a sample table that does not fit its
    /// box (an empty `stsz`): the demuxer reads these on its own.
    static let readByTheDemuxer: Set<String> = ["alac.m4a", "ep7.m4b", "nero-chapters.m4b"]

    static func path(_ name: String, shared: Bool) throws -> String {
        if name == "long-3h.m4a" { return try Fixtures.longFile() }
        return shared ? try Fixtures.shared(name) : try Fixtures.path(name)
    }

    /// Up to `limit` audio packets from where the reader stands.
    static func packets(_ reader: MediaReader, limit: Int) throws -> [MediaReader.PacketSummary] {
        try reader.audioPacketSummaries(limit: limit)
    }

    static func open(_ path: String, _ reading: SampleTableReading?) throws -> MediaReader {
        try MediaReader.open(location: .file(path: path), sourceTimeout: .seconds(10), sampleTables: reading, logger: .init(label: "test"))
    }

    @Test("a long MP4 track is read from its tables: the demuxer indexes only the head", arguments: files)
    func tablesAreUsedForLongTracks(name: String, shared: Bool) throws {
        let path = try Self.path(name, shared: shared)
        let reader = try Self.open(path, Self.everyTrack)
        if Self.readByTheDemuxer.contains(name) {
            #expect(reader.packets is DemuxedPackets)
            return
        }
        #expect(reader.packets is MP4Packets)
        #expect(reader.indexEntryCount < 200)
        // By default only tracks of more than 65,536 samples (25 minutes of AAC).
        let automatic = try Self.open(path, .automatic)
        #expect((automatic.packets is MP4Packets) == (name == "long-3h.m4a"))
        if name == "long-3h.m4a" {
            #expect(automatic.indexEntryCount < 1_200)
        }
    }

    @Test("the tables give the demuxer's packets: times, sizes, positions, bytes, from the start and after seeks", arguments: files)
    func packetsMatchTheDemuxer(name: String, shared: Bool) throws {
        let path = try Self.path(name, shared: shared)
        let demuxer = try Self.open(path, nil)
        let tables = try Self.open(path, Self.everyTrack)
        let limit = name == "long-3h.m4a" || name == "nero-chapters.m4b" ? 3_000 : 100_000
        let expected = try Self.packets(demuxer, limit: limit)
        // The Nero book's index promises 47 hours over 80 KB holding no audio at all.
        #expect(expected.count > 10 || name == "nero-chapters.m4b")
        let got = try Self.packets(tables, limit: limit)
        #expect(got.count == expected.count)
        if let first = zip(got, expected).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            Issue.record("packet \(first) differs: \(got[first]) against the demuxer's \(expected[first])")
        }
        // Seeks before, at and after the hand-over, in the middle and past the end.
        let duration = try #require(demuxer.duration)
        let seconds = [0.0, 0.5, 1.3, 2.9, 7.7, duration.seconds / 3, duration.seconds / 2, duration.seconds - 1, duration.seconds + 5]
        for second in seconds where second >= 0 {
            let target = demuxer.streamTicks(MediaTime(milliseconds: Int64(second * 1000)))
            let sought = demuxer.packets.seek(to: target)
            let tableSought = tables.packets.seek(to: target)
            #expect((sought >= 0) == (tableSought >= 0), "seek to \(second) s")
            guard sought >= 0 else { continue }
            let after = try Self.packets(demuxer, limit: 40)
            let tableAfter = try Self.packets(tables, limit: 40)
            #expect(tableAfter == after, "40 packets after a seek to \(second) s")
        }
    }

    @Test("probing with the tables describes the file as the demuxer does", arguments: files)
    func probeMatchesTheDemuxer(name: String, shared: Bool) async throws {
        let path = try Self.path(name, shared: shared)
        let plain = await Self.probe(path, nil)
        let tables = await Self.probe(path, Self.everyTrack)
        switch (plain, tables) {
        case (.success(let expected), .success(let got)):
            #expect(got == expected)
        case (.failure(let expected), .failure(let got)):
            #expect(got.code == expected.code)
            #expect(got.reason == expected.reason)
        default:
            Issue.record("the demuxer gives \(plain), the tables \(tables)")
        }
    }

    static func probe(_ path: String, _ reading: SampleTableReading?) async -> Result<MediaInfo, MediaError> {
        do throws(MediaError) {
            return .success(try await MediaFile(.file(path: path), sampleTables: reading).probe())
        } catch {
            return .failure(error)
        }
    }

    @Test("decoding with the tables gives the demuxer's samples, from the start and after a seek", arguments: files.filter { $0.0 != "truncated.m4b" && $0.0 != "nero-chapters.m4b" })
    func decodeMatchesTheDemuxer(name: String, shared: Bool) async throws {
        let path = try Self.path(name, shared: shared)
        let duration = try #require(try await MediaFile(.file(path: path)).probe().duration)
        let length = MediaTime.min(duration, MediaTime(seconds: 20))
        var ranges: [Range<MediaTime>] = [.zero..<length]
        if duration > MediaTime(seconds: 12) {
            let middle = MediaTime(milliseconds: Int64(duration.seconds * 500))
            ranges.append(middle..<MediaTime.min(duration, middle + MediaTime(seconds: 5)))
            ranges.append((duration - MediaTime(seconds: 3))..<duration)
        }
        // Decoding from a fresh input reads from the start; after a probe it seeks, which
        // restarts the decoder.
        for probedFirst in [false, true] {
            for range in ranges {
                let plain = MediaFile(.file(path: path), sampleTables: nil)
                let tables = MediaFile(.file(path: path), sampleTables: Self.everyTrack)
                if probedFirst {
                    _ = try await plain.probe()
                    _ = try await tables.probe()
                }
                let expected = try await plain.decode(range)
                let got = try await tables.decode(range)
                #expect(got.count == expected.count)
                #expect(got == expected, "decoded \(range.lowerBound)..<\(range.upperBound) s differs (probed first: \(probedFirst))")
            }
        }
    }
}
