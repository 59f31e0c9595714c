import StenoCore
import StenoInfrastructure
import Testing

@Suite("setting values from flags and the environment")
struct SettingValueTests {
    /// The wording of `problem`, or a recorded issue when `read` did not fail.
    private func wording<Value>(_ read: () throws(SettingProblem) -> Value) -> String? {
        do {
            let value = try read()
            Issue.record("read \(value), expected an error")
            return nil
        } catch {
            #expect(error.code == "invalid_setting")
            return error.description
        }
    }

    @Test("numbers in range are read, with the whitespace around them ignored")
    func inRange() throws {
        #expect(try SettingValue.integer(" 8080 ", name: "STENO_API_PORT", in: 0...65535) == 8080)
        #expect(try SettingValue.integer("0", name: "--offset", in: 0...10) == 0)
        #expect(try SettingValue.integer64("9000000000", name: "--after", in: 1...Int64.max) == 9_000_000_000)
        #expect(try SettingValue.number("2.5", name: "--rate", in: 0.01...100) == 2.5)
        #expect(try SettingValue.number("1e2", name: "--rate", in: 0.01...100) == 100)
        #expect(try SettingValue.seconds("0.25", name: "--poll-interval", in: 0.1...3600) == .milliseconds(250))
    }

    @Test("a variable's wording: the name, the value, what is accepted, and to set or unset it")
    func variableWording() {
        #expect(wording { () throws(SettingProblem) in try SettingValue.integer("80a", name: "STENO_API_PORT", in: 0...65535) }
            == #"STENO_API_PORT must be a whole number from 0 to 65535, not "80a": set it to one, or unset it"#)
        #expect(wording { () throws(SettingProblem) in try SettingValue.number("inf", name: "STENO_X_SECONDS", in: 1...60, unit: "seconds") }
            == #"STENO_X_SECONDS must be a number of seconds from 1 to 60, not "inf": set it to one, or unset it"#)
        #expect(wording { () throws(SettingProblem) in try SettingValue.integer("1.5", name: "STENO_DATABASE_WAIT_SECONDS", in: 0...3600, unit: "seconds") }
            == #"STENO_DATABASE_WAIT_SECONDS must be a whole number of seconds from 0 to 3600, not "1.5": set it to one, or unset it"#)
    }

    @Test("a flag's wording: to give it one or leave it out")
    func flagWording() {
        #expect(wording { () throws(SettingProblem) in try SettingValue.integer("0", name: "--limit", in: 1...1000) }
            == #"--limit must be a whole number from 1 to 1000, not "0": give it one, or leave it out"#)
        #expect(wording { () throws(SettingProblem) in try SettingValue.seconds("-1", name: "--timeout", in: 0.001...31_536_000) }
            == #"--timeout must be a number of seconds from 0.001 to 31536000, not "-1": give it one, or leave it out"#)
    }

    @Test("an argument's wording: to give one")
    func argumentWording() {
        #expect(wording { () throws(SettingProblem) in try SettingValue.integer("many", name: "the rounds argument", in: 1...1000) }
            == #"the rounds argument must be a whole number from 1 to 1000, not "many": give one"#)
    }

    @Test("overflowing, infinite, not-a-number, fractional and empty values are refused, never trapped on",
          arguments: ["1e308", "inf", "-inf", "nan", "99999999999999999999", "-1", "1.5", "", " ", "ten", "0x10", "5 s"])
    func refused(text: String) {
        #expect(throws: SettingProblem.self) { try SettingValue.integer(text, name: "STENO_N", in: 0...100) }
        if !["-1", "1.5"].contains(text) {
            #expect(throws: SettingProblem.self) { try SettingValue.number(text, name: "STENO_N", in: 0...100) }
        }
    }

    @Test("a long or unprintable value is described, never printed: it may be a key in the wrong variable")
    func safeValue() {
        let key = "sk-" + String(repeating: "a", count: 48)
        let long = wording { () throws(SettingProblem) in try SettingValue.number(key, name: "STENO_REQUEST_TIMEOUT", in: 1...60) }
        #expect(long == "STENO_REQUEST_TIMEOUT must be a number from 1 to 60, not a text of 51 characters: set it to one, or unset it")
        let escape = wording { () throws(SettingProblem) in try SettingValue.integer("1\u{1B}[2J", name: "--limit", in: 1...10) }
        #expect(escape == "--limit must be a whole number from 1 to 10, not a text of 5 characters: give it one, or leave it out")
        let empty = wording { () throws(SettingProblem) in try SettingValue.integer("", name: "--limit", in: 1...10) }
        #expect(empty == "--limit must be a whole number from 1 to 10, not an empty text: give it one, or leave it out")
    }

    @Test("a flag wins over its variable; a blank variable counts as unset")
    func settingText() throws {
        let environment = ["STENO_WORKER_CONCURRENCY": "4", "STENO_BLANK": "  "]
        #expect(SettingText.from(flag: "8", "--concurrency", variable: "STENO_WORKER_CONCURRENCY", in: environment)
            == SettingText(name: "--concurrency", text: "8"))
        #expect(SettingText.from(flag: nil, "--concurrency", variable: "STENO_WORKER_CONCURRENCY", in: environment)
            == SettingText(name: "STENO_WORKER_CONCURRENCY", text: "4"))
        #expect(SettingText.from(variable: "STENO_BLANK", in: environment) == nil)
        #expect(SettingText.from(variable: "STENO_MISSING", in: environment) == nil)
        #expect(try SettingValue.integer(SettingText?.none, in: 1...10) == nil)
        #expect(try SettingValue.seconds(SettingText(name: "STENO_X", text: "2"), in: 1...10) == .seconds(2))
    }
}
