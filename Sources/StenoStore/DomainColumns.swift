import StenoCore
import StenoPostgres

// The domain's enums as the columns that hold them: their raw values are the database's text.
extension MediaState: PostgresCodable {}
extension ChapterState: PostgresCodable {}
extension ChunkState: PostgresCodable {}
extension JobState: PostgresCodable {}
extension WorkerState: PostgresCodable {}
extension JobKind: PostgresCodable {}
extension JobPriority: PostgresCodable {}
extension FailureClass: PostgresCodable {}
extension JobAttempt.Outcome: PostgresCodable {}
extension AnswerDisposal.DiscardReason: PostgresCodable {}
extension ProgressStage: PostgresCodable {}
extension FlagReason: PostgresCodable {}
