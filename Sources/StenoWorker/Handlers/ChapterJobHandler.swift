import Logging
import StenoCore
import StenoStore
import StenoMedia

/// The chapter job: reads the chapter's loudness, plans chunks cut in its pauses, and stores
/// the chunks with one chunk job each.
public struct ChapterJobHandler: JobHandler {
    let store: WorkStore
    let extraction: ExtractionLimiter
    let planner: ChunkPlanner

    let sourceTimeout: Duration

    public init(store: WorkStore, extraction: ExtractionLimiter, planner: ChunkPlanner, sourceTimeout: Duration = MediaFile.defaultSourceTimeout) {
        self.sourceTimeout = sourceTimeout
        self.store = store
        self.extraction = extraction
        self.planner = planner
    }

    public func run(_ context: JobContext) async throws -> JobOutcome {
        let chapterID = try context.required(context.job.chapterID, "chapter id")
        guard let chapter = try await store.chapter(chapterID) else { return .cancelled(reason: "the chapter was deleted") }
        if chapter.isCancelled { return .cancelled(reason: "the chapter or its media is cancelled") }
        try await store.markPlanning(chapterID)
        let range = MediaTime(storedSeconds: chapter.start)..<MediaTime(storedSeconds: chapter.end)
        let file = MediaFile(MediaLocation(chapter.source), sourceTimeout: sourceTimeout, logger: context.logger)
        let energy = try await extraction.run { try await file.energyProfile(range) }
        try context.checkCancellation()
        let chunks = planner.plan(range, energy: energy)
        try await store.storePlan(context.lease, chapter: chapter, chunks: chunks)
        context.logger.info("planned chapter", metadata: ["chapter.index": "\(chapter.index)", "chunks": "\(chunks.count)"])
        return .completed
    }
}
