/// One unit of audio to send to the transcription backend.
///
/// `cutStart..<cutEnd` are the chapter's cut points: neighbouring chunks share them, so these
/// ranges tile the chapter and the merge uses them to decide which chunk a word belongs to.
/// `start..<end` is the audio actually sent: the cut range widened by half the overlap on each
/// side (never past the chapter), so that a word on a cut is heard whole by one of the two chunks;
/// a cut in a clear pause is not widened.
public struct PlannedChunk: Sendable, Hashable, Codable {
    public var index: Int
    public var cutStart: MediaTime
    public var cutEnd: MediaTime
    public var start: MediaTime
    public var end: MediaTime
    /// Where `start..<end` holds speech (seconds on the media's clock): where the words of a
    /// backend that answers without times are laid.
    public var speech: [ClosedRange<Double>]
    /// Whether the audio is sent to the backend. A stretch where the speech detector heard no
    /// voice for longer than a few seconds (music, silence, noise) is kept in the plan with its
    /// times, so that the chunks still tile the chapter, and is never uploaded or paid for.
    public var uploaded: Bool

    public init(
        index: Int, cutStart: MediaTime, cutEnd: MediaTime, start: MediaTime, end: MediaTime,
        speech: [ClosedRange<Double>] = [], uploaded: Bool = true
    ) {
        self.speech = speech
        self.uploaded = uploaded
        self.index = index
        self.cutStart = cutStart
        self.cutEnd = cutEnd
        self.start = start
        self.end = end
    }

    public var duration: MediaTime { end - start }

    /// Seconds of speech in the chunk's audio.
    public var speechSeconds: Double {
        speech.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }
    }
}
