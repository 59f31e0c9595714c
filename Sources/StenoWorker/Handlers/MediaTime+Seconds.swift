import StenoCore

extension MediaTime {
    /// Seconds as stored in a `double precision` column, floored to the microsecond so that a
    /// stored end never lands after the duration it was computed from.
    init(storedSeconds seconds: Double) {
        self.init(value: Int64((seconds * 1_000_000).rounded(.down)), timeBase: 1, 1_000_000)
    }
}
