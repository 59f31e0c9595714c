import StenoCore
import Testing

@Suite("setting values from flags and the environment")
struct SettingValueTests {
    @Test("numbers in range are read; the rest get one wording naming the setting")
    func oneWording() throws {
        #expect(try SettingValue.integer(" 8080 ", name: "STENO_API_PORT", in: 0...65535) == 8080)
        #expect(try SettingValue.number("2.5", name: "--rate", in: 0.01...100) == 2.5)
        do {
            _ = try SettingValue.integer("80a", name: "STENO_API_PORT", in: 0...65535)
            Issue.record("no error")
        } catch {
            #expect(error.description == #"STENO_API_PORT must be a whole number from 0 to 65535, not "80a""#)
        }
        do {
            _ = try SettingValue.number("inf", name: "STENO_X_SECONDS", in: 1...60, unit: "seconds")
            Issue.record("no error")
        } catch {
            #expect(error.description == #"STENO_X_SECONDS must be a number of seconds from 1 to 60, not "inf""#)
        }
    }
}
