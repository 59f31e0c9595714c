

/// A tenant's use over a period (a UTC day, a month): what billing reads.
public struct TenantUsage: Sendable, Equatable, Codable {
    /// The first UTC day of the period.
    public var day: String?
    /// Audio transcribed (seconds of chunks that succeeded).
    public var audioSeconds: Double
    /// Audio the backend was paid for.
    public var paidSeconds: Double
    public var costUSD: Double
    public var chunks: Int
    /// Media that finished transcribed.
    public var media: Int

    public init(day: String? = nil, audioSeconds: Double = 0, paidSeconds: Double = 0, costUSD: Double = 0, chunks: Int = 0, media: Int = 0) {
        self.day = day
        self.audioSeconds = audioSeconds
        self.paidSeconds = paidSeconds
        self.costUSD = costUSD
        self.chunks = chunks
        self.media = media
    }

    public var paidHours: Double { paidSeconds / 3600 }
}
