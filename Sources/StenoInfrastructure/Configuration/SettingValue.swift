import Foundation

/// Numbers from flags and environment variables, read one way with one wording of the error,
/// whichever process or command reads them:
///
///     STENO_API_PORT must be a whole number from 0 to 65535, not "80a": set it to one, or unset it
///     --limit must be a whole number from 1 to 1000, not "0": give it one, or leave it out
///
/// A `name` that starts with `-` is a flag, an upper-case one with an underscore a variable, any
/// other an argument ("the rounds argument"); the remedy follows from which.
public enum SettingValue {
    /// A whole number within `range`; `name` is the flag or variable the text came from.
    /// `unit` names what it counts ("seconds"), when it counts something.
    public static func integer(_ text: String, name: String, in range: ClosedRange<Int>, unit: String? = nil) throws(SettingProblem) -> Int {
        guard let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), range.contains(value) else {
            throw SettingProblem(
                name: name, text: text,
                accepted: "\(unit.map { "a whole number of \($0)" } ?? "a whole number") from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// A whole number within `range`, for ids and counts beyond `Int32`.
    public static func integer64(_ text: String, name: String, in range: ClosedRange<Int64>) throws(SettingProblem) -> Int64 {
        guard let value = Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)), range.contains(value) else {
            throw SettingProblem(name: name, text: text, accepted: "a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// A finite number within `range`, in `unit` when it has one ("seconds"). `inf`, `nan` and
    /// `1e308` are refused here, so that no caller multiplies them into a trap later.
    public static func number(_ text: String, name: String, in range: ClosedRange<Double>, unit: String? = nil) throws(SettingProblem) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        // Decimal only: Double's parser also takes hexadecimal ("0x10" is 16), which no operator means.
        guard trimmed.allSatisfy({ $0.isASCII && ($0.isNumber || ".eE+-".contains($0)) }),
            let value = Double(trimmed), value.isFinite, range.contains(value)
        else {
            throw SettingProblem(
                name: name, text: text,
                accepted: "\(unit.map { "a number of \($0)" } ?? "a number") from \(format(range.lowerBound)) to \(format(range.upperBound))")
        }
        return value
    }

    /// A number of seconds within `range`, as a `Duration`; fractions are kept.
    public static func seconds(_ text: String, name: String, in range: ClosedRange<Double>) throws(SettingProblem) -> Duration {
        .seconds(try number(text, name: name, in: range, unit: "seconds"))
    }

    /// `integer` of a `SettingText`; nil when the setting was not given.
    public static func integer(_ setting: SettingText?, in range: ClosedRange<Int>, unit: String? = nil) throws(SettingProblem) -> Int? {
        guard let setting else { return nil }
        return try integer(setting.text, name: setting.name, in: range, unit: unit)
    }

    /// `number` of a `SettingText`; nil when the setting was not given.
    public static func number(_ setting: SettingText?, in range: ClosedRange<Double>, unit: String? = nil) throws(SettingProblem) -> Double? {
        guard let setting else { return nil }
        return try number(setting.text, name: setting.name, in: range, unit: unit)
    }

    /// `seconds` of a `SettingText`; nil when the setting was not given.
    public static func seconds(_ setting: SettingText?, in range: ClosedRange<Double>) throws(SettingProblem) -> Duration? {
        guard let setting else { return nil }
        return try seconds(setting.text, name: setting.name, in: range)
    }

    /// A duration in seconds as an operator would write it: 300, not 300.0; 0.5.
    public static func seconds(format duration: Duration) -> String {
        format(duration.seconds)
    }

    /// A bound as an operator would write it: 3600, not 3600.0.
    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
