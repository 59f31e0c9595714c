public import Foundation

/// Numbers and times as people read them: in terminal output and on the web view's pages.
public enum HumanFormat {
    /// `1:02:03` or `4:05`.
    public static func duration(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite else { return "-" }
        let total = Int(seconds.rounded())
        let hours = total / 3600
        let minutes = total / 60 % 60
        let secondsPart = total % 60
        return hours > 0
            ? String(format: "%d:%02d:%02d", hours, minutes, secondsPart)
            : String(format: "%d:%02d", minutes, secondsPart)
    }

    public static func percent(_ value: Double) -> String {
        String(format: "%.1f%%", value)
    }

    public static func money(_ value: Double?) -> String {
        guard let value else { return "-" }
        return value < 0.01 && value > 0 ? String(format: "$%.4f", value) : String(format: "$%.2f", value)
    }

    /// `2026-11-21 04:12:05Z`.
    public static func timestamp(_ date: Date?) -> String {
        guard let date else { return "-" }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate, .withSpaceBetweenDateAndTime, .withTime, .withColonSeparatorInTime, .withTimeZone]
        return formatter.string(from: date)
    }

    /// `12s ago`, `5m ago`, `3h ago`.
    public static func age(seconds: Double) -> String {
        switch seconds {
        case ..<60: "\(Int(seconds.rounded()))s ago"
        case ..<3600: "\(Int(seconds / 60))m ago"
        case ..<86400: "\(Int(seconds / 3600))h ago"
        default: "\(Int(seconds / 86400))d ago"
        }
    }

    /// Cuts text to `width` characters with an ellipsis.
    public static func truncate(_ text: String, to width: Int) -> String {
        text.count <= width ? text : String(text.prefix(max(1, width - 1))) + "…"
    }
}
