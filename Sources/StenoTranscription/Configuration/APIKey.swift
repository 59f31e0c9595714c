/// A backend's secret key.
///
/// Neither its `description` nor its mirror (`dump`, `print` of a containing struct) shows the
/// value, so that printing a configuration, logging it, or interpolating it by mistake cannot leak
/// it. The value is read only to build the request header.
public struct APIKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Where the key came from, for messages: `STENO_API_KEY_FILE=/run/secrets/key`, say.
    public let source: String
    let value: String

    public init(_ value: String, source: String) {
        self.value = value
        self.source = source
    }

    public var description: String { "[redacted key from \(source)]" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["source": source]) }
}
