public import Foundation

/// A value that can be sent as a statement parameter, in PostgreSQL's text format.
///
/// Values are always sent as parameters, never spliced into SQL.
public protocol PostgresEncodable: Sendable {
    /// The text representation, or `nil` for SQL NULL.
    var postgresText: String? { get }
}

extension String: PostgresEncodable {
    public var postgresText: String? { self }
}

extension Int: PostgresEncodable {
    public var postgresText: String? { String(self) }
}

extension Int64: PostgresEncodable {
    public var postgresText: String? { String(self) }
}

extension Int32: PostgresEncodable {
    public var postgresText: String? { String(self) }
}

extension Int16: PostgresEncodable {
    public var postgresText: String? { String(self) }
}

extension Bool: PostgresEncodable {
    public var postgresText: String? { self ? "true" : "false" }
}

extension Double: PostgresEncodable {
    public var postgresText: String? {
        if isNaN { return "NaN" }
        if isInfinite { return self < 0 ? "-Infinity" : "Infinity" }
        return String(self)
    }
}

extension Date: PostgresEncodable {
    /// ISO 8601 in UTC with microseconds, which `timestamptz` reads exactly.
    public var postgresText: String? { PostgresTimestamp.format(self) }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    public var postgresText: String? { self?.postgresText ?? nil }
}

extension Array: PostgresEncodable where Element: PostgresEncodable {
    /// An array literal, `{...}`, every element quoted and escaped.
    @inlinable
    public var postgresText: String? {
        var text = "{"
        text.reserveCapacity(2 + count * 12)
        for (index, element) in enumerated() {
            if index > 0 { text += "," }
            guard let value = element.postgresText else {
                text += "NULL"
                continue
            }
            text += "\""
            if value.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                for scalar in value.unicodeScalars {
                    if scalar == "\"" || scalar == "\\" { text += "\\" }
                    text.unicodeScalars.append(scalar)
                }
            } else {
                text += value
            }
            text += "\""
        }
        return text + "}"
    }
}

extension PostgresEncodable where Self: RawRepresentable, RawValue: PostgresEncodable {
    public var postgresText: String? { rawValue.postgresText }
}
