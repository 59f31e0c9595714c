import Foundation

/// `--json` output: snake_case keys, ISO 8601 times in UTC, sorted keys, one document per command.
enum JSONOutput {
    static func render(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func print(_ value: some Encodable) throws {
        Swift.print(try render(value))
    }
}
