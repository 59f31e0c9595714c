

/// A tenant as `steno tenants` and the admin API show it: its settings, its work now, and its
/// use today and this month (UTC) against its budgets.
public struct TenantOverview: Sendable, Equatable, Codable {
    public var name: String
    public var settings: TenantSettings
    public var queuedJobs: Int
    public var runningJobs: Int
    public var runningChunkJobs: Int
    public var media: Int
    public var today: TenantUsage
    public var month: TenantUsage
    /// Why the tenant's chunk jobs are not started now (a budget reached), or nil.
    public var heldReason: String?

    public init(
        name: String, settings: TenantSettings, queuedJobs: Int, runningJobs: Int, runningChunkJobs: Int, media: Int,
        today: TenantUsage, month: TenantUsage, heldReason: String?
    ) {
        self.name = name
        self.settings = settings
        self.queuedJobs = queuedJobs
        self.runningJobs = runningJobs
        self.runningChunkJobs = runningChunkJobs
        self.media = media
        self.today = today
        self.month = month
        self.heldReason = heldReason
    }
}
