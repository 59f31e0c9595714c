import CLibPQ

/// Owns one `PGresult`, cleared in `deinit`.
final class LibPQResult {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        PQclear(pointer)
    }

    var status: ExecStatusType { PQresultStatus(pointer) }

    func errorField(_ field: Int32) -> String? {
        guard let value = PQresultErrorField(pointer, field) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// Copies the rows out, so that the result can be freed at once.
    func rows() -> PostgresRows {
        let rowCount = Int(PQntuples(pointer))
        let columnCount = Int(PQnfields(pointer))
        var names: [String] = []
        names.reserveCapacity(columnCount)
        for column in 0..<columnCount {
            names.append(String(cString: PQfname(pointer, Int32(column))))
        }
        let columns = PostgresColumns(names: names)
        var rows: [PostgresRow] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            var values: [String?] = []
            values.reserveCapacity(columnCount)
            for column in 0..<columnCount {
                if PQgetisnull(pointer, Int32(row), Int32(column)) == 1 {
                    values.append(nil)
                } else {
                    values.append(String(cString: PQgetvalue(pointer, Int32(row), Int32(column))))
                }
            }
            rows.append(PostgresRow(columns: columns, values: values))
        }
        let affected = Int(String(cString: PQcmdTuples(pointer))) ?? 0
        return PostgresRows(columns: columns, rows: rows, affectedRows: affected)
    }
}
