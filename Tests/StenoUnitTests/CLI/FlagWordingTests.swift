import ArgumentParser
import StenoInfrastructure
import Testing

@testable import StenoCLI

/// Every numeric flag of `steno` is read by `SettingValue`: a bad value is a usage error with the
/// wording of a bad variable, found by the parser before anything connects.
@Suite("steno's numeric flags")
struct FlagWordingTests {
    @Test("a bad number names the flag, the value, what is accepted and what to do", arguments: [
        (["list", "--limit", "0"], #"--limit must be a whole number from 1 to 1000, not "0": give it one, or leave it out"#),
        (["list", "--limit", "1e308"], #"--limit must be a whole number from 1 to 1000, not "1e308": give it one, or leave it out"#),
        (["list", "--offset", "99999999999999999999"], #"--offset must be a whole number from 0 to 100000000, not "99999999999999999999": give it one, or leave it out"#),
        (["wait", "1", "--timeout", "inf"], #"--timeout must be a number of seconds from 0.001 to 31536000, not "inf": give it one, or leave it out"#),
        (["wait", "1", "--poll-interval", "0"], #"--poll-interval must be a number of seconds from 0.1 to 3600, not "0": give it one, or leave it out"#),
        (["workers", "--stale-after", "nan"], #"--stale-after must be a number of seconds from 0.001 to 31536000, not "nan": give it one, or leave it out"#),
        (["probe", "/dev/null", "--source-timeout", "0.5"], #"--source-timeout must be a number of seconds from 1 to 3600, not "0.5": give it one, or leave it out"#),
        (["status", "--connect-window", "99999999"], #"--connect-window must be a whole number of seconds from 0 to 3600, not "99999999": give it one, or leave it out"#),
        (["cancel", "1", "--chapter", "0"], #"--chapter must be a whole number from 1 to 1000000, not "0": give it one, or leave it out"#),
        (["focus", "1", "--chapter", "1e9"], #"--chapter must be a whole number from 1 to 1000000, not "1e9": give it one, or leave it out"#),
        (["transcript", "1", "--chapter", "x"], #"--chapter must be a whole number from 1 to 1000000, not "x": give it one, or leave it out"#),
    ])
    func wording(arguments: [String], message: String) {
        do {
            _ = try Steno.parseAsRoot(arguments)
            Issue.record("\(arguments) parsed")
        } catch {
            #expect(Steno.message(for: error) == message)
            #expect(Steno.exitCode(for: error) == .validationFailure)
        }
    }

    @Test("numbers in range parse, defaults included")
    func inRange() throws {
        for arguments in [["list"], ["list", "--limit", "1000", "--offset", "0"], ["wait", "1", "--timeout", "0.5"], ["workers"],
                          ["status", "--connect-window", "0"], ["focus", "1", "--chapter", "3"]] {
            #expect(throws: Never.self, "\(arguments)") { _ = try Steno.parseAsRoot(arguments) }
        }
    }
}
