/// An exact point or length on a recording's clock, in seconds, as a reduced fraction.
///
/// Containers count time in many units (1/1000, 1/44100, 1/10^7, 1/10^9, 1/14112000...), and
/// chapter marks must line up with sample counts exactly, so times are kept as integer rationals
/// instead of floating seconds, and products are taken in 128-bit integers so they never overflow.
public struct MediaTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Numerator of the reduced fraction of seconds.
    public let numerator: Int64
    /// Denominator of the reduced fraction of seconds; always positive.
    public let denominator: Int64

    public static let zero = MediaTime(value: 0, timeBase: 1, 1)

    /// `value` ticks of `timeBaseNumerator / timeBaseDenominator` seconds each.
    public init(value: Int64, timeBase timeBaseNumerator: Int64, _ timeBaseDenominator: Int64) {
        precondition(timeBaseDenominator != 0 && timeBaseNumerator != 0, "a time base is never zero")
        self.init(reducing: Int128(value) * Int128(timeBaseNumerator), Int128(timeBaseDenominator))
    }

    public init(seconds: Int64) {
        self.init(value: seconds, timeBase: 1, 1)
    }

    public init(milliseconds: Int64) {
        self.init(value: milliseconds, timeBase: 1, 1000)
    }

    /// The time of sample `index` at `rate` samples per second.
    public init(samples index: Int64, rate: Int) {
        self.init(value: index, timeBase: 1, Int64(rate))
    }

    /// Parses seconds written in decimal ("12", "12.345", "-0.5") exactly, or `nil`.
    public init?(decimalSeconds text: String) {
        var digits = Substring(text)
        var negative = false
        if digits.first == "-" { negative = true; digits = digits.dropFirst() }
        let parts = digits.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty || parts.count == 2,
              whole.allSatisfy(\.isASCII), whole.allSatisfy(\.isNumber) else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= 9, fraction.allSatisfy({ $0.isASCII && $0.isNumber }),
              !(whole.isEmpty && fraction.isEmpty) else { return nil }
        var scale: Int128 = 1
        for _ in fraction { scale *= 10 }
        guard let wholeValue = Int128(whole.isEmpty ? "0" : String(whole)), wholeValue < Int128(Int64.max / 1_000_000_000),
              let fractionValue = Int128(fraction.isEmpty ? "0" : String(fraction)) else { return nil }
        let numerator = wholeValue * scale + fractionValue
        self.init(reducing: negative ? -numerator : numerator, scale)
    }

    private init(reducing numerator: Int128, _ denominator: Int128) {
        var numerator = numerator
        var denominator = denominator
        if denominator < 0 { numerator = -numerator; denominator = -denominator }
        let divisor = Self.greatestCommonDivisor(numerator.magnitude, denominator.magnitude)
        if divisor > 1 {
            numerator /= Int128(divisor)
            denominator /= Int128(divisor)
        }
        // Times in real files fit easily; a fraction that does not is coarsened to nanoseconds.
        if let exactNumerator = Int64(exactly: numerator), let exactDenominator = Int64(exactly: denominator) {
            self.numerator = exactNumerator
            self.denominator = exactDenominator
        } else {
            let nanoseconds = Self.divideRoundingHalfUp(numerator * 1_000_000_000, by: denominator)
            let coarse = MediaTime(reducing: nanoseconds, 1_000_000_000)
            self.numerator = coarse.numerator
            self.denominator = coarse.denominator
        }
    }

    /// Seconds as a floating-point number, for display and energy-window arithmetic only.
    public var seconds: Double { Double(numerator) / Double(denominator) }

    /// The index of the sample at this time when sampled at `rate`: `floor(t * rate + 1/2)`,
    /// rounding halves up. A range `[a, b)` holds `b.sampleIndex(rate) - a.sampleIndex(rate)`
    /// samples, so neighbouring ranges share no sample and leave none out.
    public func sampleIndex(rate: Int) -> Int64 {
        let scaled = Int128(numerator) * Int128(rate)
        return Int64(Self.divideRoundingHalfUp(scaled, by: Int128(denominator)))
    }

    /// This time in ticks of `timeBaseNumerator / timeBaseDenominator`, rounded to the nearest tick.
    public func ticks(timeBase timeBaseNumerator: Int64, _ timeBaseDenominator: Int64) -> Int64 {
        let scaled = Int128(numerator) * Int128(timeBaseDenominator)
        return Int64(clamping: Self.divideRoundingHalfUp(scaled, by: Int128(denominator) * Int128(timeBaseNumerator)))
    }

    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        MediaTime(reducing: Int128(lhs.numerator) * Int128(rhs.denominator) + Int128(rhs.numerator) * Int128(lhs.denominator),
                  Int128(lhs.denominator) * Int128(rhs.denominator))
    }

    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        MediaTime(reducing: Int128(lhs.numerator) * Int128(rhs.denominator) - Int128(rhs.numerator) * Int128(lhs.denominator),
                  Int128(lhs.denominator) * Int128(rhs.denominator))
    }

    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        Int128(lhs.numerator) * Int128(rhs.denominator) < Int128(rhs.numerator) * Int128(lhs.denominator)
    }

    /// Seconds with millisecond precision, as people read them: `83.250`.
    public var description: String {
        let milliseconds = Self.divideRoundingHalfUp(Int128(numerator) * 1000, by: Int128(denominator))
        let sign = milliseconds < 0 ? "-" : ""
        let magnitude = milliseconds.magnitude
        let fraction = String(magnitude % 1000)
        return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    /// `h:mm:ss.mmm`, for tables.
    public var clockDescription: String {
        let milliseconds = Self.divideRoundingHalfUp(Int128(numerator) * 1000, by: Int128(denominator))
        let sign = milliseconds < 0 ? "-" : ""
        let magnitude = milliseconds.magnitude
        let hours = magnitude / 3_600_000
        let minutes = magnitude / 60_000 % 60
        let seconds = magnitude / 1000 % 60
        let millis = magnitude % 1000
        func pad(_ value: UInt128, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: Swift.max(0, width - text.count)) + text
        }
        return "\(sign)\(hours):\(pad(minutes, 2)):\(pad(seconds, 2)).\(pad(millis, 3))"
    }

    static func divideRoundingHalfUp(_ value: Int128, by divisor: Int128) -> Int128 {
        // floor((2v + d) / 2d) for d > 0, with floor division for negative values.
        let numerator = 2 * value + divisor
        let denominator = 2 * divisor
        let quotient = numerator / denominator
        return (numerator % denominator != 0 && numerator < 0) ? quotient - 1 : quotient
    }

    private static func greatestCommonDivisor(_ a: UInt128, _ b: UInt128) -> UInt128 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}

extension MediaTime {
    public static func min(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a < b ? a : b }
    public static func max(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a < b ? b : a }
}

extension MediaTime: Codable {
    /// Encoded as `[numerator, denominator]`, so that no precision is lost on the way to a row or a file.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        let numerator = try container.decode(Int64.self)
        let denominator = try container.decode(Int64.self)
        guard denominator > 0 else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a time's denominator must be positive")
        }
        self.init(value: numerator, timeBase: 1, denominator)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(numerator)
        try container.encode(denominator)
    }
}
