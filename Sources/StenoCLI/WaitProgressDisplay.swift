import Foundation
import StenoCore

#if canImport(Glibc)
import Glibc
#endif

/// What `steno wait` shows while it waits: a bar per media redrawn in place on a terminal, or a
/// line whenever a media's stage or whole percent changes when the output is a file or a pipe.
final class WaitProgressDisplay {
    enum Style {
        case bars
        case lines
        /// `--json`: nothing until the end.
        case silent
    }

    private let style: Style
    /// The terminal's width, read at every redraw unless fixed (tests).
    private let fixedColumns: Int?
    private var drawnLines = 0
    private var lastLine: [Int64: String] = [:]

    init(style: Style, columns: Int? = nil) {
        self.style = style
        self.fixedColumns = columns
    }

    /// Columns of the terminal on standard output (`TIOCGWINSZ`), else `COLUMNS`, else 80.
    static func terminalColumns() -> Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let columns = Int(text), columns > 0 { return columns }
        return 80
    }

    /// Bars when standard output is a terminal that can move the cursor.
    static var standardOutputIsTerminal: Bool {
        isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    func update(_ media: [MediaProgress], deleted: [Int64]) {
        switch style {
        case .silent:
            return
        case .lines:
            for item in media {
                let line = summary(item)
                if lastLine[item.mediaID] != line {
                    lastLine[item.mediaID] = line
                    write(line + "\n")
                }
            }
            for id in deleted where lastLine[id] != "deleted" {
                lastLine[id] = "deleted"
                write("media \(id) deleted\n")
            }
        case .bars:
            var output = drawnLines > 0 ? "\u{1B}[\(drawnLines)A" : ""
            let lines = bars(media, deleted: deleted, columns: fixedColumns ?? Self.terminalColumns())
            for line in lines {
                output += "\r\u{1B}[2K" + line + "\n"
            }
            drawnLines = lines.count
            write(output)
        }
    }

    /// One line per media, each shorter than `columns`: a line that wraps would take two rows,
    /// and the redraw, which moves the cursor up one row per line, would leave copies behind.
    func bars(_ media: [MediaProgress], deleted: [Int64], columns: Int) -> [String] {
        let usable = max(20, columns - 1)
        // The bar and the name shrink with the terminal; what is left over is cut at the end.
        let barWidth = max(5, min(30, usable - 50))
        let nameWidth = max(6, min(28, usable - barWidth - 36))
        let lines = media.map { bar($0, barWidth: barWidth, nameWidth: nameWidth) } + deleted.map { "media \($0) deleted" }
        return lines.map { HumanFormat.truncate($0, to: usable) }
    }

    private func bar(_ item: MediaProgress, barWidth: Int, nameWidth: Int) -> String {
        let filled = max(0, min(barWidth, Int((item.percent / 100 * Double(barWidth)).rounded(.down))))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled)
        let name = HumanFormat.truncate(TerminalText.safe(item.displayName), to: nameWidth)
        let padded = name + String(repeating: " ", count: max(0, nameWidth - name.count))
        var line = "\(String(format: "%6lld", item.mediaID))  \(padded)  \(bar) \(String(format: "%5.1f%%", item.percent))  \(item.stage.rawValue)"
        if item.chapters > 1 { line += "  ch \(item.chaptersDone)/\(item.chapters)" }
        if item.stage == .failed, let reason = item.failureReason { line += ": " + TerminalText.safe(reason) }
        return line
    }

    private func summary(_ item: MediaProgress) -> String {
        var line = "media \(item.mediaID) \(item.stage.rawValue) \(Int(item.percent.rounded(.down)))%"
        if item.chapters > 1 { line += " (chapters \(item.chaptersDone)/\(item.chapters))" }
        if item.stage == .failed, let reason = item.failureReason { line += ": " + TerminalText.safe(reason) }
        return line
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
