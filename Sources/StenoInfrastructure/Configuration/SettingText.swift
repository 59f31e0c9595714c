/// The text a setting was given and where from: a flag's when given, else a variable's when set
/// and not blank. A flag always wins over its variable.
public struct SettingText: Sendable, Equatable {
    /// The flag (`--concurrency`) or variable (`STENO_WORKER_CONCURRENCY`) the text came from.
    public let name: String
    public let text: String

    public init(name: String, text: String) {
        self.name = name
        self.text = text
    }

    /// The flag's text when given, else the variable's; nil when neither was given. A blank
    /// variable counts as unset: compose files write `STENO_X=` for "use the default".
    public static func from(flag: String?, _ flagName: String, variable: String, in environment: [String: String]) -> SettingText? {
        if let flag { return SettingText(name: flagName, text: flag) }
        return from(variable: variable, in: environment)
    }

    /// The variable's text when set and not blank.
    public static func from(variable: String, in environment: [String: String]) -> SettingText? {
        guard let text = environment[variable], !text.allSatisfy(\.isWhitespace) else { return nil }
        return SettingText(name: variable, text: text)
    }
}
