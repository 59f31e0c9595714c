import ArgumentParser
import StenoCore
import StenoInfrastructure

/// Numbers from the commands' flags, read by `SettingValue` like every variable, so that a bad
/// one reads the same wherever it is given. ArgumentParser would parse an `Int` or `Double`
/// flag itself, with its own wording and without a range; these flags are strings for that
/// reason, and a bad value here is a usage error (exit 64) from `validate()`.
enum FlagValue {
    static func integer(_ text: String, _ flag: String, in range: ClosedRange<Int>, unit: String? = nil) throws -> Int {
        do {
            return try SettingValue.integer(text, name: flag, in: range, unit: unit)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// A chapter, numbered from 1 as `steno status` shows them.
    static func chapter(_ text: String) throws -> Int {
        try integer(text, "--chapter", in: 1...1_000_000)
    }

    static func seconds(_ text: String, _ flag: String, in range: ClosedRange<Double>) throws -> Double {
        do {
            return try SettingValue.number(text, name: flag, in: range, unit: "seconds")
        } catch {
            throw ValidationError(error.description)
        }
    }
}
