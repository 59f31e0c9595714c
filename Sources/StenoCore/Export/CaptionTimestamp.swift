/// Cue timestamps: `HH:MM:SS,mmm` for SRT and `HH:MM:SS.mmm` for WebVTT.
///
/// Times are rounded to the millisecond once, before they are split into fields, so that
/// 59.9996 s becomes `00:01:00,000` rather than `00:00:59,1000`.
public enum CaptionTimestamp {
    public static func srt(_ seconds: Double) -> String {
        format(seconds, separator: ",")
    }

    public static func webVTT(_ seconds: Double) -> String {
        format(seconds, separator: ".")
    }

    static func format(_ seconds: Double, separator: Character) -> String {
        let totalMilliseconds = max(0, Int64((seconds * 1000).rounded()))
        let milliseconds = totalMilliseconds % 1000
        let totalSeconds = totalMilliseconds / 1000
        let hours = totalSeconds / 3600
        let minutes = totalSeconds / 60 % 60
        let secondsPart = totalSeconds % 60
        return "\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(secondsPart, 2))\(separator)\(pad(milliseconds, 3))"
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
