/// Column names of a result, shared by its rows.
public final class PostgresColumns: Sendable {
    public let names: [String]
    @usableFromInline let indexByName: [String: Int]

    init(names: [String]) {
        self.names = names
        var index: [String: Int] = [:]
        for (position, name) in names.enumerated() where index[name] == nil {
            index[name] = position
        }
        self.indexByName = index
    }
}

/// One row of a result, copied out of libpq, in text format.
public struct PostgresRow: Sendable {
    public let columns: PostgresColumns
    @usableFromInline let values: [String?]

    // The decoders are inlinable so that each caller's module specializes them for its types:
    // unspecialized, every column read looked up generic metadata at run time.

    /// The value of `column`, which must not be NULL.
    @inlinable
    public func decode<Value: PostgresDecodable>(_ column: String, as type: Value.Type = Value.self) throws(PostgresError) -> Value {
        guard let value = try decode(column, as: Value?.self) else {
            throw PostgresError(.decodingFailed, "column \(column) is NULL, expected \(Value.self)")
        }
        return value
    }

    /// The value of `column`, or `nil` for NULL.
    @inlinable
    public func decode<Value: PostgresDecodable>(_ column: String, as type: Value?.Type = Value?.self) throws(PostgresError) -> Value? {
        guard let index = columns.indexByName[column] else {
            throw PostgresError(.decodingFailed, "the result has no column \(column); it has \(columns.names.joined(separator: ", "))")
        }
        guard let text = values[index] else { return nil }
        guard let value = Value(postgresText: text) else {
            // The value itself stays out of the message: it may be user data.
            throw PostgresError(.decodingFailed, "column \(column) does not hold a valid \(Value.self)")
        }
        return value
    }

    /// The raw text of `column`, for diagnostics and generic output.
    public func text(_ column: String) -> String? {
        guard let index = columns.indexByName[column] else { return nil }
        return values[index]
    }
}

/// The rows of a result, and how many rows the statement touched.
public struct PostgresRows: Sendable, RandomAccessCollection {
    public let columns: PostgresColumns
    public let rows: [PostgresRow]
    /// `PQcmdTuples`: rows inserted, updated, deleted or selected.
    public let affectedRows: Int

    public var startIndex: Int { rows.startIndex }
    public var endIndex: Int { rows.endIndex }
    public subscript(position: Int) -> PostgresRow { rows[position] }

    /// The only row; an error when there is none or more than one.
    public func single() throws(PostgresError) -> PostgresRow {
        guard rows.count == 1 else {
            throw PostgresError(.decodingFailed, "expected exactly one row, got \(rows.count)")
        }
        return rows[0]
    }
}
