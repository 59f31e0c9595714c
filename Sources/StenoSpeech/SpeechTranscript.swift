public import StenoCore
/// What the recogniser heard in one recording: segments of words, with times in seconds
/// from the start of the recording.
public struct SpeechTranscript: Sendable, Equatable {
    public struct Segment: Sendable, Equatable {
        public var start: Double
        public var end: Double
        public var words: [RecognizedWord]

        public var text: String { words.map(\.word).joined(separator: " ") }
    }

    public var duration: Double
    public var segments: [Segment]

    public var words: [RecognizedWord] { segments.flatMap(\.words) }
    public var text: String { segments.map(\.text).filter { !$0.isEmpty }.joined(separator: " ") }

    public init(duration: Double, segments: [Segment]) {
        self.duration = duration
        self.segments = segments
    }

    /// Groups words into segments, breaking at pauses of at least `pause` seconds or when a
    /// segment would grow past `maximumLength` seconds, as subtitle-sized sentences.
    public static func grouping(
        _ words: [RecognizedWord], duration: Double, pause: Double = 0.5, maximumLength: Double = 12
    ) -> SpeechTranscript {
        var segments: [Segment] = []
        var current: [RecognizedWord] = []
        for word in words {
            if let first = current.first, let last = current.last,
                word.start - last.end >= pause || word.end - first.start > maximumLength
            {
                segments.append(Segment(start: first.start, end: last.end, words: current))
                current = []
            }
            current.append(word)
        }
        if let first = current.first, let last = current.last {
            segments.append(Segment(start: first.start, end: last.end, words: current))
        }
        return SpeechTranscript(duration: duration, segments: segments)
    }
}
