

/// How a tenant shares the fleet: its weight against other tenants, a cap on its chunk jobs in
/// flight, and budgets per UTC day and month. Every limit is optional (`nil`: none).
public struct TenantSettings: Sendable, Equatable, Codable {
    /// Relative weight: while tenants have work ready, each gets jobs in flight in proportion
    /// to its share.
    public var share: Double
    /// At most this many of the tenant's chunk jobs run at once, fleet-wide.
    public var maxInFlight: Int?
    /// Audio sent to the backend (paid seconds), in hours.
    public var dailyAudioHours: Double?
    public var monthlyAudioHours: Double?
    /// Cost recorded for the tenant's chunks, in US dollars.
    public var dailyCostUSD: Double?
    public var monthlyCostUSD: Double?

    public static let defaultShare = 1.0
    /// The advisory lock namespace of claims of capped tenants ("Stet"): a claim holds one lock
    /// per capped tenant, keyed by `hashtext(name)`, until it commits.
    public static let capLockNamespace: Int32 = 0x5374_6574
    public static let shareRange = 0.001...1000.0
    /// The largest values the columns keep (`tenants`, migration 0019).
    public static let largestCap = 1_000_000
    public static let largestAudioHours = 1_000_000.0
    public static let largestCostUSD = 999_999.0

    public init(
        share: Double = TenantSettings.defaultShare, maxInFlight: Int? = nil, dailyAudioHours: Double? = nil,
        monthlyAudioHours: Double? = nil, dailyCostUSD: Double? = nil, monthlyCostUSD: Double? = nil
    ) {
        self.share = share
        self.maxInFlight = maxInFlight
        self.dailyAudioHours = dailyAudioHours
        self.monthlyAudioHours = monthlyAudioHours
        self.dailyCostUSD = dailyCostUSD
        self.monthlyCostUSD = monthlyCostUSD
    }

    /// Whether any budget is set.
    public var hasBudget: Bool {
        dailyAudioHours != nil || monthlyAudioHours != nil || dailyCostUSD != nil || monthlyCostUSD != nil
    }
}
