/// A flag or variable whose value cannot be used: which one, the value given, what is accepted
/// and what to do, in the one wording every process uses (`SettingValue`).
public struct SettingProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// Always `invalid_setting`: a log or a test can tell this from every other failure.
    public static let code = "invalid_setting"

    /// The flag (`--limit`) or variable (`STENO_API_PORT`).
    public let name: String
    /// What was given, as `description` shows it (`SettingProblem.shown`).
    public let shownValue: String
    /// What is accepted: "a whole number from 1 to 1000".
    public let accepted: String

    public var code: String { Self.code }

    public init(name: String, text: String, accepted: String) {
        self.name = name
        self.shownValue = Self.shown(text)
        self.accepted = accepted
    }

    public var isFlag: Bool { name.hasPrefix("-") }

    /// `STENO_API_PORT`: upper case with an underscore. Any other name that is not a flag is an
    /// argument ("the rounds argument"), which has no default to fall back to.
    public var isVariable: Bool {
        name.contains("_") && name.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }

    public var description: String {
        let remedy = isFlag ? "give it one, or leave it out" : isVariable ? "set it to one, or unset it" : "give one"
        return "\(name) must be \(accepted), not \(shownValue): \(remedy)"
    }

    /// The value in quotes when it is short and printable. A long one is more likely a key or a
    /// password put in the wrong variable than a number, and errors end up in logs: it is
    /// described, never printed. Control characters would reach a terminal raw.
    static func shown(_ text: String) -> String {
        let printable = text.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 && $0.value != 0x7F }
        guard printable, text.count <= maximumShown else {
            return "a text of \(text.unicodeScalars.count) characters"
        }
        return text.isEmpty ? "an empty text" : "\"\(text)\""
    }

    /// Long enough for any number an operator types, `-99999999999999999999` and `1e308` alike.
    static let maximumShown = 32
}
