public import Foundation

/// One attempt at one of a media's jobs, for its page's history: which job (the media's, a
/// chapter's, a chunk's, a merge), how it ended and why.
public struct MediaAttempt: Sendable, Equatable {
    public var kind: JobKind
    /// 1-based, for chapter, chunk and merge jobs.
    public var chapter: Int?
    /// 1-based within its chapter, for chunk jobs.
    public var chunk: Int?
    public var attempt: Int
    public var worker: String
    public var startedAt: Date
    public var finishedAt: Date?
    /// nil while the attempt runs.
    public var outcome: JobAttempt.Outcome?
    public var errorClass: String?
    public var httpStatus: Int?
    public var message: String?

    public init(
        kind: JobKind, chapter: Int?, chunk: Int?, attempt: Int, worker: String, startedAt: Date, finishedAt: Date?,
        outcome: JobAttempt.Outcome?, errorClass: String?, httpStatus: Int?, message: String?
    ) {
        self.kind = kind
        self.chapter = chapter
        self.chunk = chunk
        self.attempt = attempt
        self.worker = worker
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.outcome = outcome
        self.errorClass = errorClass
        self.httpStatus = httpStatus
        self.message = message
    }

    /// "chunk 3 of chapter 2", "chapter 2", "the media", "merge of chapter 2".
    public var job: String {
        switch kind {
        case .media: "the media"
        case .chapter: chapter.map { "chapter \($0)" } ?? "a chapter"
        case .chunk: "chunk \(chunk.map(String.init) ?? "?") of chapter \(chapter.map(String.init) ?? "?")"
        case .merge: "merge of chapter \(chapter.map(String.init) ?? "?")"
        }
    }
}
