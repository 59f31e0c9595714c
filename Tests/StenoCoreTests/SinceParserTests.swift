import Foundation
import Testing

@testable import StenoCore

@Suite("since: spans and dates")
struct SinceParserTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    @Test("a span counts back from now, in seconds to weeks, up to a century")
    func spans() {
        #expect(SinceParser.parse("90m", now: Self.now) == Self.now.addingTimeInterval(-5400))
        #expect(SinceParser.parse("24H", now: Self.now) == Self.now.addingTimeInterval(-86400))
        #expect(SinceParser.parse("2w", now: Self.now) == Self.now.addingTimeInterval(-14 * 86400))
        #expect(SinceParser.parse("101000d", now: Self.now) == nil)
        #expect(SinceParser.parse("-3d", now: Self.now) == nil)
    }

    @Test("a date or a time in UTC, trimmed as a span is, never lowercased")
    func dates() throws {
        let day = try #require(SinceParser.parse("2026-11-20", now: Self.now))
        #expect(day == Date(timeIntervalSince1970: 1_795_132_800))
        #expect(SinceParser.parse("  2026-11-20 ", now: Self.now) == day)
        let time = try #require(SinceParser.parse(" 2026-11-20T08:00:00Z", now: Self.now))
        #expect(time == day.addingTimeInterval(8 * 3600))
        #expect(SinceParser.parse("yesterday", now: Self.now) == nil)
        #expect(SinceParser.parse("2026-13-40", now: Self.now) == nil)
    }
}
