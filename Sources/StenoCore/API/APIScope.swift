/// What an API key may do. Each scope includes the ones before it: a `submit` key also reads,
/// an `admin` key also submits.
public enum APIScope: String, Sendable, CaseIterable, Codable, Comparable {
    /// Lists media, follows progress and fetches transcripts of its tenant.
    case read
    /// Also adds media, through `/v1/media` or the OpenAI-compatible endpoint.
    case submit
    /// Also cancels, retries, focuses and deletes media, and reads the fleet's workers and report.
    case admin

    var rank: Int {
        switch self {
        case .read: 0
        case .submit: 1
        case .admin: 2
        }
    }

    public static func < (lhs: APIScope, rhs: APIScope) -> Bool { lhs.rank < rhs.rank }

    /// Whether a key of this scope may do what `needed` allows.
    public func allows(_ needed: APIScope) -> Bool { self >= needed }
}
