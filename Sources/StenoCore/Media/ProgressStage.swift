/// Where a media or chapter stands, in an operator's words. The `steno_progress` and
/// `steno_chapter_progress` views derive it from the states the worker writes:
///
/// | stage | media | chapter |
/// | --- | --- | --- |
/// | queued | queued | queued |
/// | probing | probing | |
/// | extracting | transcribing, some chapter planning its chunks | planning |
/// | transcribing | transcribing | transcribing |
/// | merging | transcribing, only merges left | merging |
/// | done, failed, cancelled | succeeded, failed, cancelled | the same |
public enum ProgressStage: String, Sendable, CaseIterable, Codable {
    case queued
    case probing
    case extracting
    case transcribing
    case merging
    case done
    case failed
    case cancelled

    public var isFinished: Bool {
        switch self {
        case .done, .failed, .cancelled: true
        default: false
        }
    }
}
