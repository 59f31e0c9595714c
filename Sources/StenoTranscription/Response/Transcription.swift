/// What a backend made of one chunk, with times relative to the start of the chunk.
public struct Transcription: Sendable, Equatable {
    public var text: String
    /// Never empty when `text` is not: a backend that returns no timestamps yields one segment
    /// covering the whole chunk.
    public var segments: [TranscriptionSegment]
    /// Empty when the backend gives no word timestamps.
    public var words: [TranscriptionWord]
    /// As the backend names it: `en`, or `english` from whisper.cpp and speaches.
    public var language: String?
    /// The audio duration the backend saw, in seconds.
    public var duration: Double?
    public var usage: TranscriptionUsage?
    /// False when the backend gave no times at all (`json` or `text` without segments): the one
    /// segment then spans the chunk, and where its words were said is for Steno to find.
    public var timed = true

    public init(
        text: String, segments: [TranscriptionSegment], words: [TranscriptionWord] = [], language: String? = nil,
        duration: Double? = nil, usage: TranscriptionUsage? = nil
    ) {
        self.text = text
        self.segments = segments
        self.words = words
        self.language = language
        self.duration = duration
        self.usage = usage
    }
}
