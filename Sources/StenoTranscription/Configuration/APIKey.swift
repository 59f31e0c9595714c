/// A backend's secret key.
///
/// Its `description` never shows the value, so that printing a configuration, logging it, or
/// interpolating it by mistake cannot leak it. The value is read only to build the request header.
public struct APIKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Where the key came from, for messages: `STENO_API_KEY_FILE=/run/secrets/key`, say.
    public let source: String
    let value: String

    public init(_ value: String, source: String) {
        self.value = value
        self.source = source
    }

    public var description: String { "[redacted key from \(source)]" }
    public var debugDescription: String { description }
}
