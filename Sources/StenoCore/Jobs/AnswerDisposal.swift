/// What became of a transcription the backend returned: every answer is paid for, so an answer
/// is thrown away only when the chunk cannot take it, and each such case is counted
/// (`steno_worker_answers_discarded_total{reason}` and `job_attempts.answer_discarded`).
public enum AnswerDisposal: Sendable, Equatable {
    /// Stored, and the job completed under its lease.
    case stored(mergeEnqueued: Bool)
    /// Stored although the attempt had lost its lease: the first answer for a chunk wins,
    /// whichever attempt brought it, and the job's current holder finds the chunk done.
    case keptAfterLeaseLost(mergeEnqueued: Bool)
    case discarded(DiscardReason)

    public enum DiscardReason: String, Sendable, CaseIterable {
        /// Another attempt's answer for the same chunk was stored first.
        case alreadyAnswered = "already_answered"
        /// The chunk was cancelled, split or failed for good meanwhile.
        case chunkEnded = "chunk_ended"
        /// The write kept failing with the answer held in memory, until its window ran out.
        case database
    }

    /// Whether an answer arriving for a chunk in `chunkState` (nil: the chunk was deleted) must
    /// be thrown away, and why; nil means it is written, with or without the lease.
    public static func discardReason(forChunkState chunkState: ChunkState?) -> DiscardReason? {
        switch chunkState {
        case .queued, .running: nil
        case .succeeded: .alreadyAnswered
        case .failed, .cancelled, .split, nil: .chunkEnded
        }
    }
}
