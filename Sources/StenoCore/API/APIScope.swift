/// What an API key may do. Each scope includes the ones before it: a `submit` key also reads,
/// an `admin` key also submits.
public enum APIScope: String, Sendable, CaseIterable, Codable, Comparable {
    /// Lists media, follows progress and fetches transcripts of its tenant.
    case read
    /// Also adds media, through `/v1/media` or the OpenAI-compatible endpoint.
    case submit
    /// Also cancels, retries, focuses and deletes its tenant's media, reads its tenant's share,
    /// budgets and use, and reads the fleet's workers and report.
    case admin
    /// Also operates the fleet's tenants: reads and changes every tenant's share, cap and
    /// budgets. Whatever its own tenant is called: a tenant's admin key never reaches another.
    case operate

    var rank: Int {
        switch self {
        case .read: 0
        case .submit: 1
        case .admin: 2
        case .operate: 3
        }
    }

    public static func < (lhs: APIScope, rhs: APIScope) -> Bool { lhs.rank < rhs.rank }

    /// Whether a key of this scope may do what `needed` allows.
    public func allows(_ needed: APIScope) -> Bool { self >= needed }
}
