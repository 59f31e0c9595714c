/// Text the backend wrote that the gates held back, with its times on the media's clock and
/// why. Kept in the database and shown as flagged: audited, never silently lost.
public struct FlaggedText: Sendable, Hashable, Codable {
    public var start: Double
    public var end: Double
    public var text: String
    public var reason: FlagReason

    public init(start: Double, end: Double, text: String, reason: FlagReason) {
        self.start = start
        self.end = end
        self.text = text
        self.reason = reason
    }
}
