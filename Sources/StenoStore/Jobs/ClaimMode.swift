/// How a claim hands jobs out, as the tenants' settings ask: decided from one read of `tenants`
/// (`JobStore.claimMode()`, and each worker heartbeat), so that a fleet of one tenant pays
/// nothing for sharing.
public enum ClaimMode: Sendable, Equatable {
    /// One tenant, with no cap and no budget: its own order is the claim's, read from its index
    /// in one short scan (the shared claim would rank, count and sort for nothing).
    case oneTenant(String)
    /// Several tenants, or limits to keep: fair share across tenants (`JobStore.claimQuery`),
    /// with the locks of capped tenants when `exactCaps`.
    case shared(exactCaps: Bool)

    /// Before a worker has read the tenants: the claim that is right whatever they are.
    public static let unknown = ClaimMode.shared(exactCaps: true)

    /// The mode for `tenants` rows, the name of the first, and whether any has a cap or a budget.
    public static func decide(tenants: Int, first: String?, anyCap: Bool, anyBudget: Bool) -> ClaimMode {
        if tenants == 1, let first, !anyCap, !anyBudget { return .oneTenant(first) }
        return .shared(exactCaps: anyCap)
    }
}
