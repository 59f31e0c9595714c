public import Foundation

/// One media as `steno status`, `steno list` and `steno wait` show it: a row of `steno_progress`.
public struct MediaProgress: Sendable, Equatable, Codable {
    public var mediaID: Int64
    public var title: String?
    public var source: String
    public var state: MediaState
    public var stage: ProgressStage
    public var priority: JobPriority
    public var durationSeconds: Double?
    public var chapters: Int
    public var chaptersDone: Int
    public var chaptersFailed: Int
    public var chunks: Int
    public var chunksDone: Int
    public var chunksFailed: Int
    /// 0...100, chunk progress weighted by audio duration.
    public var percent: Double
    /// Attempts started over all of the media's jobs; more than the job count means retries.
    public var attempts: Int
    public var failedJobs: Int
    public var activeJobs: Int
    public var costUSD: Double
    /// The cost so far scaled to the whole media; `nil` before any chunk is done.
    public var estimatedCostUSD: Double?
    /// Seconds of detected speech; nil when the chapters were planned without speech detection.
    public var speechSeconds: Double?
    /// Seconds of audio the backend was paid for (its usage, else the uploaded chunks' length).
    public var paidSeconds: Double
    public var errorClass: String?
    public var errorMessage: String?
    /// 1-based chapter numbers, `all` when every chapter.
    public var chapterSelection: String
    /// 1-based chapter number a listener is on.
    public var focusChapter: Int?
    public var createdAt: Date
    public var updatedAt: Date
    public var finishedAt: Date?
    /// The spoken language: the one given, else the one settled from the answers; nil while
    /// not known, and for a media that speaks several.
    public var language: String?
    /// Whether `language` was detected rather than given.
    public var languageDetected = false
    /// `--language multi`: each chunk keeps its own language.
    public var multilingual = false
    /// `--translate`: the transcript is English, translated from `language` (if given).
    public var translate = false

    /// The language as a person reads it: "de", "de (detected)", "several (each chunk its own)",
    /// "not yet known (detected from the first answers)", "en (translated from de)".
    public var languageText: String {
        if translate { return "en (translated" + (language.map { " from \($0))" } ?? ")") }
        if multilingual { return "several (each chunk its own)" }
        guard let language else { return "not yet known (detected from the first answers)" }
        return languageDetected ? "\(language) (detected)" : language
    }

    public init(
        mediaID: Int64, title: String?, source: String, state: MediaState, stage: ProgressStage, priority: JobPriority,
        durationSeconds: Double?, chapters: Int, chaptersDone: Int, chaptersFailed: Int, chunks: Int, chunksDone: Int,
        chunksFailed: Int, percent: Double, attempts: Int, failedJobs: Int, activeJobs: Int, costUSD: Double,
        estimatedCostUSD: Double?, errorClass: String?, errorMessage: String?, chapterSelection: String, focusChapter: Int?,
        createdAt: Date, updatedAt: Date, finishedAt: Date?, speechSeconds: Double? = nil, paidSeconds: Double = 0
    ) {
        self.speechSeconds = speechSeconds
        self.paidSeconds = paidSeconds
        self.mediaID = mediaID
        self.title = title
        self.source = source
        self.state = state
        self.stage = stage
        self.priority = priority
        self.durationSeconds = durationSeconds
        self.chapters = chapters
        self.chaptersDone = chaptersDone
        self.chaptersFailed = chaptersFailed
        self.chunks = chunks
        self.chunksDone = chunksDone
        self.chunksFailed = chunksFailed
        self.percent = percent
        self.attempts = attempts
        self.failedJobs = failedJobs
        self.activeJobs = activeJobs
        self.costUSD = costUSD
        self.estimatedCostUSD = estimatedCostUSD
        self.errorClass = errorClass
        self.errorMessage = errorMessage
        self.chapterSelection = chapterSelection
        self.focusChapter = focusChapter
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.finishedAt = finishedAt
    }

    /// The title, or the source's last path component when there is none.
    public var displayName: String {
        if let title, !title.isEmpty { return title }
        return source.split(separator: "/").last.map(String.init) ?? source
    }

    /// The failure in plain words: what the class means, then the stored message.
    public var failureReason: String? {
        FailureReason.describe(errorClass: errorClass, message: errorMessage)
    }
}
