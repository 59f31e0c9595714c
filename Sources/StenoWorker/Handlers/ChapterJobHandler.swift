import Logging
public import StenoCore
import StenoInfrastructure
public import StenoStore
public import StenoMedia
public import StenoObjectStore
public import StenoVoice

/// The chapter job: reads the chapter's loudness and where it holds speech (Silero VAD) in one
/// decode, plans chunks of the speech cut in its pauses, and stores them: one chunk job for each
/// chunk to upload, and the non-speech between them as chunks that are never sent.
public struct ChapterJobHandler: JobHandler {
    let store: WorkStore
    let extraction: ExtractionLimiter
    let planner: ChunkPlanner
    /// nil with speech detection off: chapters are then cut by loudness alone and uploaded whole.
    let voice: SileroModel?
    let sourceTimeout: Duration
    let sources: MediaSources

    public init(
        store: WorkStore, extraction: ExtractionLimiter, planner: ChunkPlanner, voice: SileroModel?,
        sourceTimeout: Duration = MediaFile.defaultSourceTimeout, sources: MediaSources = MediaSources(store: nil)
    ) {
        self.sources = sources
        self.sourceTimeout = sourceTimeout
        self.voice = voice
        self.store = store
        self.extraction = extraction
        self.planner = planner
    }

    public func run(_ context: JobContext) async throws -> JobOutcome {
        let chapterID = try context.required(context.job.chapterID, "chapter id")
        guard let chapter = try await store.chapter(chapterID) else { return .cancelled(reason: "the chapter was deleted") }
        if chapter.isCancelled { return .cancelled(reason: "the chapter or its media is cancelled") }
        try await store.markPlanning(chapterID)
        let range = chapter.span
        let file = try await sources.open(chapter.source, expecting: chapter.sourceObject, sourceTimeout: sourceTimeout, logger: context.logger)
        let (energy, speech) = try await extraction.run { try await file.speechAnalysis(range, voice: voice) }
        try context.checkCancellation()
        let chunks = planner.plan(range, energy: energy, voice: speech)
        try await store.storePlan(context.lease, chapter: chapter, chunks: chunks)
        let uploaded = chunks.filter(\.uploaded)
        context.logger.info("planned chapter", metadata: [
            "chapter.index": "\(chapter.index)", "chunks": "\(uploaded.count)", "chunks.not_uploaded": "\(chunks.count - uploaded.count)",
            "speech_seconds": "\(Self.rounded(chunks.reduce(0) { $0 + $1.speechSeconds }))",
            "upload_seconds": "\(Self.rounded(uploaded.reduce(0) { $0 + $1.duration.seconds }))",
        ])
        return .completed
    }

    private static func rounded(_ seconds: Double) -> Double { (seconds * 10).rounded() / 10 }
}

extension MediaFile {
    /// The loudness of `range` and the speech detector's verdict on it, from one decode.
    /// Without a model, the loudness alone.
    func speechAnalysis(_ range: Range<MediaTime>, voice: SileroModel?) async throws(MediaError) -> (EnergyProfile, VoiceActivity?) {
        guard let voice else { return (try await energyProfile(range), nil) }
        let windowSamples = try Self.energyWindowSamples()
        return try await analyze(range) { start, samples in
            AudioAnalysisPair(
                EnergyProfileBuilder(start: start, sampleRate: VoiceActivity.sampleRate, windowSamples: windowSamples, expectedSamples: samples),
                SileroDetector(model: voice, start: start, expectedSamples: samples))
        }
    }
}
