import Logging
import StenoCore
import StenoStore

/// The merge job: joins the chapter's chunk transcripts into sentences on the media's clock,
/// writes them to `segments` with the chapter's text, and finishes the media after its last chapter.
public struct MergeJobHandler: JobHandler {
    let store: WorkStore
    let merger: TranscriptMerger

    public init(store: WorkStore, merger: TranscriptMerger = TranscriptMerger()) {
        self.store = store
        self.merger = merger
    }

    public func run(_ context: JobContext) async throws -> JobOutcome {
        let chapterID = try context.required(context.job.chapterID, "chapter id")
        guard let chapter = try await store.chapter(chapterID) else { return .cancelled(reason: "the chapter was deleted") }
        if chapter.isCancelled { return .cancelled(reason: "the chapter or its media is cancelled") }
        let transcripts = try await store.transcripts(ofChapter: chapterID)
        // Held-back text keeps its place in time, as flagged rows beside the sentences.
        let flagged = transcripts.flatMap(\.flagged).map {
            MergedSentence(start: $0.start, end: max($0.start, $0.end), text: $0.text, words: [], flag: $0.reason)
        }
        let sentences = (merger.merge(transcripts, chapter: chapter.span.seconds) + flagged)
            .sorted { ($0.start, $0.flag == nil ? 0 : 1) < ($1.start, $1.flag == nil ? 0 : 1) }
        let finished = try await store.storeMerge(context.lease, chapter: chapter, sentences: sentences)
        context.logger.info("merged chapter", metadata: [
            "chapter.index": "\(chapter.index)", "chunks": "\(transcripts.count)", "segments": "\(sentences.count)",
        ])
        if let finished {
            context.logger.info("media finished", metadata: ["state": "\(finished.rawValue)"])
        }
        return .completed
    }
}
