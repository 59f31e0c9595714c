import Foundation
import StenoPostgres
import StenoTestSupport
import Testing

/// The bad-input catalogue at the CLI's doors: every broken, special, unreachable, hostile and
/// malformed source through `steno probe` and `steno enqueue`, and every numeric option with
/// values out of range. Each must end in time with a clear one-line error (or a clean success),
/// print no secret, no raw control character and no crash text, and leave no half-made row.
@Suite("bad-input catalogue: probe and enqueue", .serialized, .timeLimit(.minutes(5)))
struct BadInputCatalogueTests {
    /// Text that means a crash, a driver's or Foundation's own words reaching a user.
    static let crashText = ["Fatal error", "Backtrace", "SQLSTATE", "NSCocoaErrorDomain", "Error Domain=", "Swift runtime failure"]

    static func expectClean(_ result: ChildProcess, _ context: String, secret: String? = nil) {
        #expect(!result.timedOut, "\(context): still running after its time limit")
        let printed = result.standardOutput + result.standardError
        for text in crashText {
            #expect(!printed.contains(text), "\(context): printed \(text): \(printed)")
        }
        #expect(!printed.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" || $0.value == 0x7F },
                "\(context): printed a raw control character: \(printed.debugDescription)")
        if let secret { #expect(!printed.contains(secret), "\(context): printed the URL's password") }
    }

    /// One line naming the problem. A usage error (exit 64) is the parser's: `Error: ` and the
    /// usage line; `enqueue` names each refused source on a line of its own, then sums up.
    static func expectOneLineError(_ result: ChildProcess, _ context: String, mentions: [String]) {
        let lines = result.standardError.split(separator: "\n")
        if result.status == 64 {
            #expect(lines.first?.hasPrefix("Error: ") == true, "\(context): \(result.standardError)")
        } else if lines.first?.hasPrefix("cannot enqueue ") == true {
            #expect(lines.count == 2 && lines[1].hasPrefix("error: ") && lines[1].contains("nothing was enqueued"),
                    "\(context): \(result.standardError)")
        } else {
            #expect(lines.count == 1 && lines[0].hasPrefix("error: "), "\(context): \(result.standardError)")
        }
        for word in mentions {
            #expect(result.standardError.lowercased().contains(word), "\(context): does not mention \(word): \(result.standardError)")
        }
    }

    @Test("probe: readable sources are described, the others fail in time with one line naming the problem")
    func probe() async throws {
        let catalogue = try BadInputCatalogue()
        defer { catalogue.close() }
        for bad in catalogue.sources {
            let result = try await StenoProcess.run(["probe", bad.source, "--source-timeout", "2"], timeLimit: .seconds(30))
            Self.expectClean(result, "probe \(bad)", secret: bad.secret)
            if bad.readable {
                #expect(result.status == 0, "probe \(bad): \(result.standardError)")
                #expect(result.standardOutput.contains("duration"), "probe \(bad): \(result.standardOutput)")
            } else {
                #expect([1, 2, 64].contains(result.status), "probe \(bad): exit \(result.status): \(result.standardError)")
                Self.expectOneLineError(result, "probe \(bad)", mentions: bad.mentions)
            }
        }
    }

    @Test("enqueue: each source is taken as one media with one job, or refused with its reason and nothing stored")
    func enqueue() async throws {
        let catalogue = try BadInputCatalogue(hangingURLs: false)
        defer { catalogue.close() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            func counts() async throws -> (media: Int64, jobs: Int64) {
                let row = try await client.query("SELECT (SELECT count(*) FROM media) AS media, (SELECT count(*) FROM jobs) AS jobs").first
                return (try row?.decode("media", as: Int64.self) ?? -1, try row?.decode("jobs", as: Int64.self) ?? -1)
            }
            for bad in catalogue.sources {
                let before = try await counts()
                let result = try await database.steno(["enqueue", bad.source])
                let after = try await counts()
                Self.expectClean(result, "enqueue \(bad)", secret: bad.secret)
                if bad.enqueueable {
                    #expect(result.status == 0, "enqueue \(bad): \(result.standardError)")
                    #expect(after.media == before.media + 1 && after.jobs == before.jobs + 1, "enqueue \(bad): \(before) -> \(after)")
                } else {
                    #expect([2, 64].contains(result.status), "enqueue \(bad): exit \(result.status): \(result.standardError)")
                    Self.expectOneLineError(result, "enqueue \(bad)", mentions: bad.mentions)
                    #expect(after == before, "enqueue \(bad) stored something: \(before) -> \(after)")
                }
            }
            let stored = try await client.query("SELECT source FROM media").map { try $0.decode("source", as: String.self) }
            for bad in catalogue.sources {
                if let secret = bad.secret {
                    // The media row keeps the credentials the worker needs; only output must hide them.
                    #expect(stored.contains { $0.contains(secret) }, "the URL's credentials were not kept for the worker")
                }
            }
        }
    }

    /// Every numeric option of every command, with values that overflow, are not finite, are
    /// negative or out of range: a usage error (exit 2 or 64) naming the option, never a crash.
    static let numericCases: [(arguments: [String], option: String)] = [
        (["list", "--since", "99999999999d"], "since"), (["list", "--since", "-5m"], "since"), (["list", "--since", "nan"], "since"),
        (["list", "--limit", "0"], "limit"), (["list", "--limit", "1e308"], "limit"), (["list", "--limit", "99999999999999999999"], "limit"),
        (["list", "--offset", "-1"], "offset"), (["list", "--after", "-3"], "after"),
        (["wait", "1", "--timeout", "1e308"], "timeout"), (["wait", "1", "--timeout", "inf"], "timeout"), (["wait", "1", "--timeout", "nan"], "timeout"),
        (["wait", "1", "--timeout", "-1"], "timeout"), (["wait", "1", "--poll-interval", "0"], "poll"), (["wait", "1", "--poll-interval", "inf"], "poll"),
        (["wait", "0"], "media"), (["wait", "99999999999999999999"], "media"), (["status", "-1"], "media"),
        (["delete", "1", "nan"], "media"), (["retry", "0"], "media"),
        (["cancel", "1", "--chapter", "0"], "chapter"), (["cancel", "1", "--chapter", "1e9"], "chapter"),
        (["focus", "1", "--chapter", "-2"], "chapter"), (["transcript", "1", "--chapter", "0"], "chapter"),
        (["workers", "--stale-after", "nan"], "stale"), (["workers", "--stale-after", "-1"], "stale"), (["workers", "--stale-after", "1e308"], "stale"),
        (["probe", "/dev/null", "--source-timeout", "inf"], "source-timeout"), (["probe", "/dev/null", "--source-timeout", "-1"], "source-timeout"),
        (["status", "--connect-window", "nan"], "connect-window"), (["status", "--connect-window", "99999999"], "connect-window"),
        (["enqueue", FixtureBook.file("book.mp3").path, "--chapters", "0-3"], "chapter"),
        (["enqueue", FixtureBook.file("book.mp3").path, "--chapters", "99999999999999999999"], "chapter"),
    ]

    @Test("numeric options out of range are usage errors that name the option, for every command")
    func numericOptions() async throws {
        for (arguments, option) in Self.numericCases {
            let result = try await StenoProcess.run(
                arguments + ["--database-url", "postgres://steno@127.0.0.1:1/steno"], timeLimit: .seconds(20))
            let context = arguments.joined(separator: " ")
            Self.expectClean(result, context)
            #expect([2, 64].contains(result.status), "\(context): exit \(result.status): \(result.standardError)")
            #expect(result.standardError.lowercased().contains(option), "\(context): does not name \(option): \(result.standardError)")
        }
    }
}
