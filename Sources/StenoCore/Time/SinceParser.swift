public import Foundation

/// `--since` and the API's `since`: a span back from now (`90m`, `24h`, `7d`, `2w`) or a date (`2026-11-20`,
/// `2026-11-20T08:00:00Z`), read in UTC.
public enum SinceParser {
    public static func parse(_ text: String, now: Date) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        // A span is finite and at most about a century: Dates and timestamps beyond that overflow.
        if let unit = trimmed.last, let amount = Double(trimmed.dropLast()), amount.isFinite, amount >= 0 {
            let seconds: Double? = switch unit {
            case "s": amount
            case "m": amount * 60
            case "h": amount * 3600
            case "d": amount * 86400
            case "w": amount * 7 * 86400
            default: nil
            }
            if let seconds, seconds <= maximumSpan { return now.addingTimeInterval(-seconds) }
            if seconds != nil { return nil }
        }
        // The date is read from the same trimmed text as the span (not lowercased: `T` and `Z`).
        let date = text.trimmingCharacters(in: .whitespaces)
        if let parsed = try? Date.ISO8601FormatStyle().parse(date) { return parsed }
        return try? Date.ISO8601FormatStyle().year().month().day().parse(date)
    }

    public static let maximumSpan: Double = 100 * 366 * 86400

    public static let help = "a span back from now (up to a century) such as 90m, 24h, 7d, 2w, or a date such as 2026-11-20 or 2026-11-20T08:00:00Z"
}
