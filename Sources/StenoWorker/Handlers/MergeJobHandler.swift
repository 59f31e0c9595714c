import Foundation
import Logging
public import StenoCore
import StenoInfrastructure
public import StenoStore

/// The merge job: joins the chapter's chunk transcripts into sentences on the media's clock,
/// tells its speakers apart from the voice pieces its chunks measured, writes the sentences to
/// `segments` with the chapter's text, and finishes the media after its last chapter.
public struct MergeJobHandler: JobHandler {
    let store: WorkStore
    let merger: TranscriptMerger
    let settings: SpeakerSettings
    /// Asks the backend again for a chunk's audio in a given language; nil keeps the answer.
    let retake: Retake?

    /// The chunk's answer to its audio asked in `language` (its usage and cost the sums of both
    /// answers), with what the second ask alone was paid; nil when the ask failed.
    public typealias Retake = @Sendable (_ chunkID: Int64, _ language: String, _ context: JobContext) async throws
        -> (answer: WorkStore.StoredTranscription, paidAgain: Double, costAgain: Double?)?

    public init(
        store: WorkStore, merger: TranscriptMerger = TranscriptMerger(), settings: SpeakerSettings = .calibrated,
        retake: Retake? = nil
    ) {
        self.retake = retake
        self.store = store
        self.merger = merger
        self.settings = settings
    }

    public func run(_ context: JobContext) async throws -> JobOutcome {
        let chapterID = try context.required(context.job.chapterID, "chapter id")
        guard let chapter = try await store.chapter(chapterID) else { return .cancelled(reason: "the chapter was deleted") }
        if chapter.isCancelled { return .cancelled(reason: "the chapter or its media is cancelled") }
        try await inOneLanguage(chapter, context)
        let transcripts = try await store.transcripts(ofChapter: chapterID)
        // Held-back text keeps its place in time, as flagged rows beside the sentences.
        let flagged = transcripts.flatMap(\.flagged).map {
            MergedSentence(start: $0.start, end: max($0.start, $0.end), text: $0.text, words: [], flag: $0.reason)
        }
        let sentences = (merger.merge(transcripts, chapter: chapter.span.seconds) + flagged)
            .sorted { ($0.start, $0.flag == nil ? 0 : 1) < ($1.start, $1.flag == nil ? 0 : 1) }
        var plan: ChapterSpeakerPlan?
        if let voices = try await store.chapterVoices(chapterID), !voices.windows.isEmpty {
            plan = await Self.offThePool { [settings] in
                ChapterSpeakerPlan(windows: voices.windows, speech: voices.speech, count: voices.count, settings: settings)
            }
        }
        try context.checkCancellation()
        let finished = try await store.storeMerge(context.lease, chapter: chapter, sentences: sentences, speakers: plan)
        context.logger.info("merged chapter", metadata: [
            "chapter.index": "\(chapter.index)", "chunks": "\(transcripts.count)", "segments": "\(sentences.count)",
            "voice_windows": "\(plan?.groupPieces.reduce(0, +) ?? 0)", "voice_groups": "\(plan?.groupCount ?? 0)",
        ])
        if let finished {
            context.logger.info("media finished", metadata: ["state": "\(finished.rawValue)"])
        }
        return .completed
    }

    /// One language per media: a media whose language was not given has it settled by its
    /// first merge at the latest (the language most of its answers so far are in), and the
    /// chapter's chunks answered in another language (asked bare, before it was settled) are
    /// asked again in it before they are merged. A chunk whose ask fails keeps its answer.
    func inOneLanguage(_ chapter: WorkStore.ChapterRecord, _ context: JobContext) async throws {
        guard let retake, let language = try await store.settleLanguageForMerge(mediaID: chapter.mediaID) else { return }
        for chunkID in try await store.chunksInAnotherLanguage(chapterID: chapter.id, than: language) {
            try context.checkCancellation()
            // The heartbeat finds a lost lease only at its next beat: ask the database before
            // paying, so that a merge another worker took over pays for nothing more.
            guard try await store.holds(context.lease) else {
                throw StoreError(.leaseLost, "the lease of \(context.lease) was lost before asking a chunk again", jobID: context.job.id)
            }
            guard let (answer, paidAgain, costAgain) = try await retake(chunkID, language, context) else { continue }
            try await store.replaceAnswer(context.lease, chunkID: chunkID, chapterID: chapter.id, with: answer, paidAgain: paidAgain, costAgain: costAgain)
            context.logger.info("asked a chunk again in the media's language before the merge", metadata: [
                "chunk.id": "\(chunkID)", "language": "\(language)", "words": "\(answer.words.count)",
            ])
        }
    }

    /// Clustering a long chapter takes a second or more of CPU: not on the cooperative pool.
    static func offThePool<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async { continuation.resume(returning: body()) }
        }
    }
}
