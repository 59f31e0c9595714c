/// `timestamp_granularities[]` values; they need `verbose_json`.
public enum TimestampGranularity: String, Sendable, CaseIterable {
    case segment, word
}
