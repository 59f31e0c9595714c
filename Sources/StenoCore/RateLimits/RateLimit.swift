import Foundation
/// A backend's limits for the whole fleet: requests a minute and seconds of audio an hour, as
/// providers' tiers state them (a free tier: 20 requests a minute, 7,200 audio seconds an hour).
/// Either may be absent.
public struct RateLimit: Sendable, Hashable, Codable {
    public var requestsPerMinute: Double?
    public var audioSecondsPerHour: Double?

    public init(requestsPerMinute: Double? = nil, audioSecondsPerHour: Double? = nil) {
        self.requestsPerMinute = requestsPerMinute
        self.audioSecondsPerHour = audioSecondsPerHour
    }

    /// Nothing to limit.
    public var isEmpty: Bool { requestsPerMinute == nil && audioSecondsPerHour == nil }

    /// "20 requests/min, 7200 audio s/h", for logs and `steno workers`.
    public var summary: String {
        var parts: [String] = []
        if let requestsPerMinute { parts.append("\(Self.number(requestsPerMinute)) requests/min") }
        if let audioSecondsPerHour { parts.append("\(Self.number(audioSecondsPerHour)) audio s/h") }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }

    static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.1f", value)
    }
}
