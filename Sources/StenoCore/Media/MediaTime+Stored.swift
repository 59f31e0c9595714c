import StenoInfrastructure

extension MediaTime {
    /// Seconds as stored in a `double precision` column, floored to the microsecond so that a
    /// stored end never lands after the duration it was computed from.
    public init(storedSeconds seconds: Double) {
        self.init(value: Int64((seconds * 1_000_000).rounded(.down)), timeBase: 1, 1_000_000)
    }
}

extension Range<MediaTime> {
    /// A stored span (`start_seconds`, `end_seconds`) on the media's clock.
    public init(storedSeconds start: Double, _ end: Double) {
        self = MediaTime(storedSeconds: start)..<MediaTime(storedSeconds: Swift.max(start, end))
    }

    public var length: MediaTime { upperBound - lowerBound }

    /// In seconds, for what is kept as `double precision` (segment and word times).
    public var seconds: ClosedRange<Double> { lowerBound.seconds...upperBound.seconds }
}
