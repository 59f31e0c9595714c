import Foundation

/// `timestamptz` in text form, as the server prints it with `DateStyle = ISO` (every Steno
/// session sets it, with `TimeZone = UTC`): `2026-11-21 04:12:05.123456+00`.
enum PostgresTimestamp {
    static func format(_ date: Date) -> String {
        let totalMicroseconds = (date.timeIntervalSince1970 * 1_000_000).rounded()
        var seconds = Int64((totalMicroseconds / 1_000_000).rounded(.down))
        let microseconds = Int64(totalMicroseconds) - seconds * 1_000_000
        let days = floorDivide(seconds, 86_400)
        seconds -= days * 86_400
        let (year, month, day) = civilDate(fromDays: days)
        return String(
            format: "%04lld-%02lld-%02lld %02lld:%02lld:%02lld.%06lld+00",
            year, month, day, seconds / 3600, seconds / 60 % 60, seconds % 60, microseconds)
    }

    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var position = 0

        func number(digits: Int) -> Int64? {
            guard position + digits <= bytes.count else { return nil }
            var value: Int64 = 0
            for _ in 0..<digits {
                let byte = bytes[position]
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
                position += 1
            }
            return value
        }
        func expect(_ character: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == character else { return false }
            position += 1
            return true
        }

        guard let year = number(digits: 4), expect(UInt8(ascii: "-")),
            let month = number(digits: 2), expect(UInt8(ascii: "-")),
            let day = number(digits: 2)
        else { return nil }
        guard expect(UInt8(ascii: " ")) || expect(UInt8(ascii: "T")),
            let hour = number(digits: 2), expect(UInt8(ascii: ":")),
            let minute = number(digits: 2), expect(UInt8(ascii: ":")),
            let second = number(digits: 2)
        else { return nil }

        var fraction = 0.0
        if expect(UInt8(ascii: ".")) {
            var scale = 0.1
            while position < bytes.count, bytes[position] >= 48, bytes[position] <= 57 {
                fraction += Double(bytes[position] - 48) * scale
                scale /= 10
                position += 1
            }
        }

        var offsetSeconds: Int64 = 0
        if position < bytes.count {
            let sign: Int64
            if expect(UInt8(ascii: "+")) {
                sign = 1
            } else if expect(UInt8(ascii: "-")) {
                sign = -1
            } else if expect(UInt8(ascii: "Z")) {
                sign = 0
            } else {
                return nil
            }
            if sign != 0 {
                guard let hours = number(digits: 2) else { return nil }
                var minutes: Int64 = 0
                var extraSeconds: Int64 = 0
                if expect(UInt8(ascii: ":")) {
                    guard let value = number(digits: 2) else { return nil }
                    minutes = value
                    if expect(UInt8(ascii: ":")) {
                        guard let value = number(digits: 2) else { return nil }
                        extraSeconds = value
                    }
                }
                offsetSeconds = sign * (hours * 3600 + minutes * 60 + extraSeconds)
            }
        }
        guard position == bytes.count else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }

        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }

    /// Howard Hinnant's `days_from_civil`: days since 1970-01-01 in the proleptic Gregorian calendar.
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let monthIndex = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse, `civil_from_days`.
    private static func civilDate(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}
