import Foundation

/// One chapter of a media as `steno status MEDIA` shows it: a row of `steno_chapter_progress`.
public struct ChapterProgress: Sendable, Equatable, Codable {
    public var chapterID: Int64
    /// 1-based.
    public var number: Int
    public var title: String?
    public var state: ChapterState
    public var stage: ProgressStage
    public var startSeconds: Double
    public var endSeconds: Double
    public var chunks: Int
    public var chunksDone: Int
    public var chunksFailed: Int
    public var percent: Double
    public var attempts: Int
    public var failedJobs: Int
    public var activeJobs: Int
    /// The highest priority among its queued and running jobs.
    public var priority: JobPriority?
    public var costUSD: Double
    public var estimatedCostUSD: Double?
    /// Seconds of detected speech; nil when planned without speech detection.
    public var speechSeconds: Double?
    /// Seconds of audio the backend was paid for.
    public var paidSeconds: Double
    public var errorClass: String?
    public var errorMessage: String?

    public init(
        chapterID: Int64, number: Int, title: String?, state: ChapterState, stage: ProgressStage, startSeconds: Double,
        endSeconds: Double, chunks: Int, chunksDone: Int, chunksFailed: Int, percent: Double, attempts: Int,
        failedJobs: Int, activeJobs: Int, priority: JobPriority?, costUSD: Double, estimatedCostUSD: Double?,
        errorClass: String?, errorMessage: String?, speechSeconds: Double? = nil, paidSeconds: Double = 0
    ) {
        self.speechSeconds = speechSeconds
        self.paidSeconds = paidSeconds
        self.chapterID = chapterID
        self.number = number
        self.title = title
        self.state = state
        self.stage = stage
        self.startSeconds = startSeconds
        self.endSeconds = endSeconds
        self.chunks = chunks
        self.chunksDone = chunksDone
        self.chunksFailed = chunksFailed
        self.percent = percent
        self.attempts = attempts
        self.failedJobs = failedJobs
        self.activeJobs = activeJobs
        self.priority = priority
        self.costUSD = costUSD
        self.estimatedCostUSD = estimatedCostUSD
        self.errorClass = errorClass
        self.errorMessage = errorMessage
    }

    public var failureReason: String? {
        FailureReason.describe(errorClass: errorClass, message: errorMessage)
    }
}
