import StenoCore
public import StenoPostgres

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
extension APIScope: PostgresCodable {}

// Written into statements as literals where the planner must see them (partial indexes).
extension MediaState: PostgresLiteral {}
extension ChapterState: PostgresLiteral {}
extension ChunkState: PostgresLiteral {}
extension JobState: PostgresLiteral {}
extension WorkerState: PostgresLiteral {}
extension JobKind: PostgresLiteral {}
extension FailureClass: PostgresLiteral {}
extension JobAttempt.Outcome: PostgresLiteral {}
