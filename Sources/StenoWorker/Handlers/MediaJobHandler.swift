import Logging
import StenoCore
public import StenoStore
public import StenoMedia
public import StenoObjectStore

/// The media job: probes the source, stores what it found, creates the selected chapters and one
/// chapter job each, and moves the media to `transcribing`.
public struct MediaJobHandler: JobHandler {
    let store: WorkStore
    let extraction: ExtractionLimiter

    let sourceTimeout: Duration
    let sources: MediaSources

    public init(
        store: WorkStore, extraction: ExtractionLimiter, sourceTimeout: Duration = MediaFile.defaultSourceTimeout,
        sources: MediaSources = MediaSources(store: nil)
    ) {
        self.sourceTimeout = sourceTimeout
        self.sources = sources
        self.store = store
        self.extraction = extraction
    }

    public func run(_ context: JobContext) async throws -> JobOutcome {
        let mediaID = try context.required(context.job.mediaID, "media id")
        guard let media = try await store.media(mediaID) else {
            return .cancelled(reason: "the media was deleted")
        }
        if media.state == .cancelled { return .cancelled(reason: "the media is cancelled") }
        try await store.markProbing(mediaID)
        let file = try await sources.open(media.source, expecting: media.sourceObject, sourceTimeout: sourceTimeout, logger: context.logger)
        let info = try await extraction.run { try await file.probe() }
        try context.checkCancellation()
        let chapters = selected(info.chapters, by: media.chapterSelection)
        guard !chapters.isEmpty else {
            if info.chapters.isEmpty {
                throw MediaError(.corrupt, "the recording declares no duration, so it cannot be cut into chapters", source: media.source)
            }
            let wanted = (media.chapterSelection ?? []).map { String($0 + 1) }.joined(separator: ", ")
            throw WorkerError(
                .noSelectedChapter, .media,
                "the recording has \(info.chapters.count) chapter(s); none of the selected chapters (\(wanted)) exists",
                jobID: context.job.id)
        }
        let summary = WorkStore.ProbeSummary(
            container: info.container, audioCodec: info.audio.codec, sampleRate: info.audio.sampleRate,
            channels: info.audio.channels, duration: info.duration?.seconds)
        try await store.storeProbe(context.lease, media: media, summary: summary, chapters: chapters)
        context.logger.info("probed media", metadata: [
            "chapters": "\(chapters.count)", "duration": "\(info.duration?.seconds ?? 0)", "container": "\(info.container)",
        ])
        return .completed
    }

    private func selected(_ chapters: [Chapter], by selection: [Int]?) -> [Chapter] {
        guard let selection else { return chapters }
        let wanted = Set(selection)
        return chapters.filter { wanted.contains($0.index) }
    }
}
