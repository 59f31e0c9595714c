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
    private var drawnLines = 0
    private var lastLine: [Int64: String] = [:]

    init(style: Style) {
        self.style = style
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
            var lines = media.map(bar)
            lines += deleted.map { "media \($0) deleted" }
            for line in lines {
                output += "\r\u{1B}[2K" + line + "\n"
            }
            drawnLines = lines.count
            write(output)
        }
    }

    private func bar(_ item: MediaProgress) -> String {
        let width = 30
        let filled = max(0, min(width, Int((item.percent / 100 * Double(width)).rounded(.down))))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let name = HumanFormat.truncate(item.displayName, to: 28)
        let padded = name + String(repeating: " ", count: max(0, 28 - name.count))
        var line = "\(String(format: "%6lld", item.mediaID))  \(padded)  \(bar) \(String(format: "%5.1f%%", item.percent))  \(item.stage.rawValue)"
        if item.chapters > 1 { line += "  ch \(item.chaptersDone)/\(item.chapters)" }
        if item.stage == .failed, let reason = item.failureReason { line += ": " + HumanFormat.truncate(reason, to: 80) }
        return line
    }

    private func summary(_ item: MediaProgress) -> String {
        var line = "media \(item.mediaID) \(item.stage.rawValue) \(Int(item.percent.rounded(.down)))%"
        if item.chapters > 1 { line += " (chapters \(item.chaptersDone)/\(item.chapters))" }
        if item.stage == .failed, let reason = item.failureReason { line += ": " + reason }
        return line
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
