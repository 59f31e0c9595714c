/// Why a transcript could not be written in a format.
public enum TranscriptExportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A time is NaN or infinite, which JSON cannot hold.
    case nonFiniteNumber

    public var description: String {
        switch self {
        case .nonFiniteNumber: "a stored time is not a finite number, which JSON cannot hold"
        }
    }
}
