import Foundation
import Testing

@testable import StenoPostgres

@Suite("PostgresTimestamp")
struct PostgresTimestampTests {
    @Test("formats and parses microseconds exactly, before and after 1970")
    func roundTrip() throws {
        for seconds in [0.0, 1_795_000_000.654321, -86_400.5, 951_782_400.0, 4_102_444_800.000001] {
            let date = Date(timeIntervalSince1970: seconds)
            let text = PostgresTimestamp.format(date)
            let parsed = try #require(PostgresTimestamp.parse(text))
            #expect(abs(parsed.timeIntervalSince1970 - seconds) < 0.000_001, "\(text)")
        }
    }

    @Test("reads the server's forms, with offsets")
    func serverForms() throws {
        #expect(PostgresTimestamp.parse("2000-02-29 00:00:00+00")?.timeIntervalSince1970 == 951_782_400)
        #expect(PostgresTimestamp.parse("2000-02-29 02:00:00+02")?.timeIntervalSince1970 == 951_782_400)
        #expect(PostgresTimestamp.parse("2000-02-28 18:30:00-05:30")?.timeIntervalSince1970 == 951_782_400)
        #expect(PostgresTimestamp.format(Date(timeIntervalSince1970: 951_782_400.25)) == "2000-02-29 00:00:00.250000+00")
        #expect(PostgresTimestamp.parse("2000-13-01 00:00:00+00") == nil)
        #expect(PostgresTimestamp.parse("yesterday") == nil)
    }
}
