/// Priorities follow the listening user: the chapter being listened to is high,
/// the next one medium, whole-book background work low.
///
/// Stored as a small integer so that `ORDER BY priority DESC` serves the claim index.
public enum JobPriority: Int, Sendable, CaseIterable, Codable, Comparable {
    case low = 0
    case medium = 1
    case high = 2

    public init?(name: String) {
        switch name.lowercased() {
        case "low", "background": self = .low
        case "medium", "next": self = .medium
        case "high", "now": self = .high
        default: return nil
        }
    }

    public var name: String {
        switch self {
        case .low: "low"
        case .medium: "medium"
        case .high: "high"
        }
    }

    public static func < (lhs: JobPriority, rhs: JobPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
