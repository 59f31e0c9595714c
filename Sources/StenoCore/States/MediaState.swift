/// `media.state`, as the worker moves it: `queued -> probing -> transcribing -> succeeded | failed | cancelled`.
public enum MediaState: String, Sendable, CaseIterable, Codable {
    case queued
    case probing
    case transcribing
    case succeeded
    case failed
    case cancelled

    public var isFinished: Bool {
        switch self {
        case .queued, .probing, .transcribing: false
        case .succeeded, .failed, .cancelled: true
        }
    }

    /// The states in which a media is still being worked on.
    public static let active: [MediaState] = allCases.filter { !$0.isFinished }
}
