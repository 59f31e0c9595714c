

/// A change to a tenant's settings: each field is left as it is, set, or cleared.
public struct TenantChange: Sendable, Equatable, Codable {
    /// One setting's change.
    public enum Setting<Value: Sendable & Equatable & Codable>: Sendable, Equatable, Codable {
        case keep
        case set(Value)
        case clear

        /// The value after the change, given the value before.
        public func applied(to value: Value?) -> Value? {
            switch self {
            case .keep: value
            case .set(let new): new
            case .clear: nil
            }
        }
    }

    public var share: Double?
    public var maxInFlight: Setting<Int> = .keep
    public var dailyAudioHours: Setting<Double> = .keep
    public var monthlyAudioHours: Setting<Double> = .keep
    public var dailyCostUSD: Setting<Double> = .keep
    public var monthlyCostUSD: Setting<Double> = .keep

    public init(
        share: Double? = nil, maxInFlight: Setting<Int> = .keep, dailyAudioHours: Setting<Double> = .keep,
        monthlyAudioHours: Setting<Double> = .keep, dailyCostUSD: Setting<Double> = .keep, monthlyCostUSD: Setting<Double> = .keep
    ) {
        self.share = share
        self.maxInFlight = maxInFlight
        self.dailyAudioHours = dailyAudioHours
        self.monthlyAudioHours = monthlyAudioHours
        self.dailyCostUSD = dailyCostUSD
        self.monthlyCostUSD = monthlyCostUSD
    }

    /// The settings after this change, or why it cannot be made (a message that says what to do).
    public func applied(to settings: TenantSettings) -> Result<TenantSettings, TenantChangeError> {
        var next = settings
        if let share {
            guard share.isFinite, TenantSettings.shareRange.contains(share) else {
                return .failure(TenantChangeError("the share must be a number from 0.001 to 1000, not \(share)", field: "share"))
            }
            next.share = share
        }
        next.maxInFlight = maxInFlight.applied(to: settings.maxInFlight)
        if let cap = next.maxInFlight, !(1...TenantSettings.largestCap).contains(cap) {
            return .failure(
                TenantChangeError(
                    "the cap on chunk jobs in flight must be at least 1 and at most \(TenantSettings.largestCap), not \(cap) (clear it with `none`)",
                    field: "max_in_flight"))
        }
        next.dailyAudioHours = dailyAudioHours.applied(to: settings.dailyAudioHours)
        next.monthlyAudioHours = monthlyAudioHours.applied(to: settings.monthlyAudioHours)
        for (field, hours) in [("daily_audio_hours", next.dailyAudioHours), ("monthly_audio_hours", next.monthlyAudioHours)]
        where hours.map({ !($0.isFinite && (0...TenantSettings.largestAudioHours).contains($0)) }) ?? false {
            return .failure(
                TenantChangeError(
                    "an audio-hours budget must be from 0 to \(Int(TenantSettings.largestAudioHours)), not \(hours ?? 0)", field: field))
        }
        next.dailyCostUSD = dailyCostUSD.applied(to: settings.dailyCostUSD)
        next.monthlyCostUSD = monthlyCostUSD.applied(to: settings.monthlyCostUSD)
        for (field, cost) in [("daily_cost_usd", next.dailyCostUSD), ("monthly_cost_usd", next.monthlyCostUSD)]
        where cost.map({ !($0.isFinite && (0...TenantSettings.largestCostUSD).contains($0)) }) ?? false {
            return .failure(
                TenantChangeError("a cost budget must be from 0 to \(Int(TenantSettings.largestCostUSD)) US dollars, not \(cost ?? 0)", field: field))
        }
        return .success(next)
    }
}

/// A tenant change that cannot be made; its message says what to give instead, and `field`
/// names the setting (as the API spells it).
public struct TenantChangeError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public let field: String

    public init(_ description: String, field: String) {
        self.description = description
        self.field = field
    }
}
