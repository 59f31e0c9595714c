public import Foundation

/// A value that can be read from a column in PostgreSQL's text format.
public protocol PostgresDecodable: Sendable {
    /// `nil` when the text is not a valid value of this type.
    init?(postgresText: String)
}

extension String: PostgresDecodable {
    public init?(postgresText: String) { self = postgresText }
}

extension Int: PostgresDecodable {
    public init?(postgresText: String) { self.init(postgresText) }
}

extension Int64: PostgresDecodable {
    public init?(postgresText: String) { self.init(postgresText) }
}

extension Int32: PostgresDecodable {
    public init?(postgresText: String) { self.init(postgresText) }
}

extension Int16: PostgresDecodable {
    public init?(postgresText: String) { self.init(postgresText) }
}

extension Bool: PostgresDecodable {
    public init?(postgresText: String) {
        switch postgresText {
        case "t", "true": self = true
        case "f", "false": self = false
        default: return nil
        }
    }
}

extension Double: PostgresDecodable {
    public init?(postgresText: String) {
        switch postgresText {
        case "NaN": self = .nan
        case "Infinity": self = .infinity
        case "-Infinity": self = -.infinity
        default: self.init(postgresText)
        }
    }
}

extension Date: PostgresDecodable {
    public init?(postgresText: String) {
        guard let date = PostgresTimestamp.parse(postgresText) else { return nil }
        self = date
    }
}

extension Array: PostgresDecodable where Element: PostgresDecodable {
    /// A one-dimensional array literal such as `{1,2,3}` or `{"a b",NULL}`; NULL elements are refused.
    public init?(postgresText: String) {
        guard let elements = PostgresArrayLiteral.parse(postgresText) else { return nil }
        var values: [Element] = []
        values.reserveCapacity(elements.count)
        for element in elements {
            guard let element, let value = Element(postgresText: element) else { return nil }
            values.append(value)
        }
        self = values
    }
}

extension PostgresDecodable where Self: RawRepresentable, RawValue: PostgresDecodable {
    public init?(postgresText: String) {
        guard let raw = RawValue(postgresText: postgresText) else { return nil }
        self.init(rawValue: raw)
    }
}

enum PostgresArrayLiteral {
    /// Splits `{a,"b c",NULL}` into its elements; `nil` for NULL elements.
    static func parse(_ text: String) -> [String?]? {
        var characters = Substring(text)
        guard characters.first == "{", characters.last == "}" else { return nil }
        characters = characters.dropFirst().dropLast()
        if characters.isEmpty { return [] }
        var elements: [String?] = []
        var current = ""
        var quoted = false
        var wasQuoted = false
        var escaped = false
        for character in characters {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
                wasQuoted = true
            } else if character == "," && !quoted {
                elements.append(!wasQuoted && current == "NULL" ? nil : current)
                current = ""
                wasQuoted = false
            } else {
                current.append(character)
            }
        }
        guard !quoted, !escaped else { return nil }
        elements.append(!wasQuoted && current == "NULL" ? nil : current)
        return elements
    }
}

/// A type both sent as a parameter and read from a column.
public typealias PostgresCodable = PostgresEncodable & PostgresDecodable
