/// Columns padded to their widest cell, for terminal output.
struct TextTable {
    var headers: [String]
    var rows: [[String]] = []
    /// Columns aligned right (numbers).
    var rightAligned: Set<Int> = []
    /// `false` for a list of label and value pairs.
    var showsHeader = true

    init(_ headers: [String], rightAligned: Set<Int> = []) {
        self.headers = headers
        self.rightAligned = rightAligned
    }

    mutating func add(_ row: [String]) {
        rows.append(row)
    }

    /// Every cell is made safe for the terminal and kept on one line (`TerminalText`).
    func render() -> String {
        let all = ((showsHeader ? [headers] : []) + rows).map { $0.map(TerminalText.safe) }
        let widths = headers.indices.map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: max(0, widths[column] - cell.count))
                if column == row.count - 1 && !rightAligned.contains(column) { return cell }
                return rightAligned.contains(column) ? padding + cell : cell + padding
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
