import Foundation
import Synchronization

/// How long a backend asks the client to wait before the next request.
enum RetryAfter {
    /// From `retry-after-ms` (OpenAI's, milliseconds), then `Retry-After` in seconds or as an
    /// HTTP date; nil when absent, unreadable, or not in the future.
    static func delay(in response: HTTPResponse, now: Date) -> Duration? {
        if let text = response.header("retry-after-ms"), let milliseconds = Double(text.trimmingWhitespace), milliseconds > 0 {
            return .milliseconds(Int64(milliseconds.rounded(.up)))
        }
        guard let text = response.header("retry-after")?.trimmingWhitespace, !text.isEmpty else { return nil }
        if let seconds = Double(text) {
            return seconds > 0 ? .milliseconds(Int64((seconds * 1000).rounded(.up))) : nil
        }
        guard let date = httpDate(text) else { return nil }
        let interval = date.timeIntervalSince(now)
        return interval > 0 ? .milliseconds(Int64((interval * 1000).rounded(.up))) : nil
    }

    /// RFC 9110 IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`, and the obsolete RFC 850 form.
    static func httpDate(_ text: String) -> Date? {
        formatters.withLock { formatters in formatters.lazy.compactMap { $0.date(from: text) }.first }
    }

    /// Built once per process (a formatter is costly to make) and used under a lock (one is not
    /// safe to share between threads).
    private static let formatters = Mutex(
        ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"].map { format in
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            return formatter
        })
}
