/// One statement with its parameters, each bound where it is written:
///
///     "UPDATE jobs SET state = \(JobState.running) WHERE id = \(jobID)"
///
/// becomes `UPDATE jobs SET state = $1 WHERE id = $2` with two parameters. Values are always sent
/// as parameters, never spliced into the SQL; SQL itself is added only through
/// `\(sql: "...")` (a constant of the caller's) or `\(fragment)` (another `PostgresQuery`, whose
/// parameters are renumbered into this one).
///
/// A connection prepares each distinct statement text once (`isPrepared`), so that PostgreSQL
/// parses and plans it once per session instead of on every call.
public struct PostgresQuery: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The SQL with `$1`, `$2`, ... placeholders.
    public private(set) var sql: String
    /// The parameters in PostgreSQL's text format (`nil` for NULL), in placeholder order.
    public private(set) var bindings: [String?]
    /// Whether a connection prepares the statement once and reuses it.
    public var isPrepared: Bool

    public init(stringLiteral value: String) {
        self.sql = value
        self.bindings = []
        self.isPrepared = true
    }

    public init(stringInterpolation: StringInterpolation) {
        self.sql = stringInterpolation.sql
        self.bindings = stringInterpolation.bindings
        self.isPrepared = true
    }

    /// A statement written with positional placeholders, for ad-hoc SQL (tests, operators' tools).
    public init(sql: String, parameters: [any PostgresEncodable], isPrepared: Bool = false) {
        self.sql = sql
        self.bindings = parameters.map(\.postgresText)
        self.isPrepared = isPrepared
    }

    /// The statement's first line: never its parameters, which may hold anything.
    public var description: String { PostgresError.summary(of: sql) }

    // Inlinable, so that each caller's module specializes the appends for its value types.
    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        @usableFromInline var sql: String
        @usableFromInline var bindings: [String?]

        @inlinable
        public init(literalCapacity: Int, interpolationCount: Int) {
            sql = ""
            sql.reserveCapacity(literalCapacity + interpolationCount * 3)
            bindings = []
            bindings.reserveCapacity(interpolationCount)
        }

        @inlinable
        public mutating func appendLiteral(_ literal: String) {
            sql += literal
        }

        /// A value, sent as the next parameter.
        @inlinable
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value) {
            bindings.append(value.postgresText)
            sql += "$\(bindings.count)"
        }

        /// An optional value: NULL when nil. (Its own overload, so that the compiler does not
        /// take an optional here for a slip that would print `Optional(...)`: it is bound.)
        @inlinable
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value?) {
            bindings.append(value?.postgresText ?? nil)
            sql += "$\(bindings.count)"
        }

        /// SQL text of the caller's own: a table or channel name, never a value from outside.
        public mutating func appendInterpolation(sql fragment: StaticString) {
            sql += fragment.description
        }

        /// An integer written into the SQL itself rather than sent as a parameter, where the
        /// planner must know it (a `LIMIT`): each value is then a statement text of its own,
        /// with a plan of its own. An integer's digits cannot carry SQL.
        public mutating func appendInterpolation(literal value: Int) {
            sql += String(value)
        }

        /// A case of one of the domain's closed sets (a state) written into the SQL as a quoted
        /// literal, not sent as a parameter: the planner must see it, since a partial index whose
        /// predicate is `state = 'queued'` serves only a statement that says `'queued'` itself.
        /// Named by its type in Swift, so that a state the enum does not have cannot be written.
        public mutating func appendInterpolation<Value: PostgresLiteral>(literal value: Value) {
            sql += Self.quoted(value)
        }

        /// Several such cases, comma-separated, for `IN (...)` and `ARRAY[...]`.
        public mutating func appendInterpolation<Value: PostgresLiteral>(literals values: [Value]) {
            precondition(!values.isEmpty, "an IN list names at least one value")
            sql += values.map { Self.quoted($0) }.joined(separator: ", ")
        }

        @usableFromInline
        static func quoted<Value: PostgresLiteral>(_ value: Value) -> String {
            // Raw values are SQL words: nothing in them can leave the quotes.
            precondition(value.rawValue.allSatisfy { $0.isASCII && ($0.isLowercase || $0 == "_") }, "\(value.rawValue) is not a plain word")
            return "'" + value.rawValue + "'"
        }

        /// Another query's SQL and parameters, renumbered to follow this one's.
        public mutating func appendInterpolation(_ fragment: PostgresQuery) {
            // A fragment without parameters has no placeholders to move.
            sql += fragment.bindings.isEmpty ? fragment.sql : PostgresQuery.renumbered(fragment.sql, by: bindings.count)
            bindings += fragment.bindings
        }
    }

    /// `sql` with every placeholder `$n` outside quotes and comments moved up by `offset`.
    static func renumbered(_ sql: String, by offset: Int) -> String {
        guard offset > 0 else { return sql }
        var result = ""
        result.reserveCapacity(sql.utf8.count + 8)
        var quote: Character?
        var iterator = sql.makeIterator()
        var pending: Character? = iterator.next()
        while let character = pending {
            pending = iterator.next()
            if let open = quote {
                result.append(character)
                if character == open { quote = nil }
                continue
            }
            if character == "'" || character == "\"" {
                quote = character
                result.append(character)
                continue
            }
            guard character == "$", let next = pending, next.isASCII, next.isNumber else {
                result.append(character)
                continue
            }
            var digits = ""
            while let digit = pending, digit.isASCII, digit.isNumber {
                digits.append(digit)
                pending = iterator.next()
            }
            result += "$\(Int(digits)! + offset)"
        }
        return result
    }
}

/// A closed set of plain lowercase words (an enum of states or kinds), which a statement may write
/// into its SQL as literals: `"WHERE state = \(literal: JobState.queued)"` sends `'queued'`.
public protocol PostgresLiteral: RawRepresentable where RawValue == String {}
