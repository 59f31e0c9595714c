import Foundation

/// Numbers from flags and environment variables, read one way with one wording of the error:
/// "STENO_API_RATE must be a number from 0.1 to 100000, not "fast"".
public enum SettingValue {
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// A whole number within `range`; `name` is the flag or variable the text came from.
    public static func integer(_ text: String, name: String, in range: ClosedRange<Int>) throws(Problem) -> Int {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let value = Int(trimmed), range.contains(value) else {
            throw Problem(description: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return value
    }

    /// A finite number within `range`, in `unit` when it has one ("seconds").
    public static func number(_ text: String, name: String, in range: ClosedRange<Double>, unit: String? = nil) throws(Problem) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let value = Double(trimmed), value.isFinite, range.contains(value) else {
            let what = unit.map { "a number of \($0)" } ?? "a number"
            throw Problem(description: "\(name) must be \(what) from \(format(range.lowerBound)) to \(format(range.upperBound)), not \"\(text)\"")
        }
        return value
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
