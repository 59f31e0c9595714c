import Foundation
import StenoInfrastructure

/// Checks what a backend answered for a chunk against what the speech detector heard, and holds
/// back what nobody said: text outside the detected speech, phrases Whisper is known to invent
/// over little or no speech, repetition loops, more characters than anyone speaks, and text the
/// backend itself judged to be no speech. A pure decision: the chunk job carries it out,
/// retrying a chunk that failed once (at a higher temperature) before its text is dropped.
///
/// Segments are judged one by one, and a flagged segment's words go with it. An answer without
/// segments (json-only backends) is judged whole, against all the speech in the chunk.
public struct AnswerGate: Sendable {
    /// Whisper's own no-speech rule: both must hold.
    public var noSpeechProbability = 0.6
    public var averageLogProbability = -1.0
    /// Whisper retries a decode whose text compresses better than this.
    public var compressionRatio = 2.4
    /// Below this many bytes, a compression ratio says nothing.
    public var shortestCompressedText = 40
    /// The same word this many times in a row, or the same two to four words this many times,
    /// is a loop.
    public var repeatedWord = 5
    public var repeatedPhrase = 4
    /// Characters (letters and digits) per second of speech that no speaker reaches.
    public var fastestSpeech = 30.0
    /// Texts shorter than this are not judged on speed: a short word on a short blip of
    /// detected speech is fine.
    public var shortestTimedText = 20
    /// How far from detected speech a segment may be stamped and still be heard as speech:
    /// backends stretch and shift segment times by about this much.
    public var timeTolerance = 1.0
    /// A known phrase needs at least its characters at this rate of detected speech under it.
    public var knownPhraseRate = 20.0
    public var phrases: Set<String> = HallucinationPhrases.english

    public init() {}

    /// A segment as the backend answered it, on the media's clock.
    public struct Segment: Sendable, Hashable {
        public var start: Double
        public var end: Double
        public var text: String
        public var noSpeechProbability: Double?
        public var averageLogProbability: Double?
        /// The backend's own compression ratio of the segment's text, when it reports one.
        public var compressionRatio: Double?

        public init(
            start: Double, end: Double, text: String, noSpeechProbability: Double? = nil, averageLogProbability: Double? = nil,
            compressionRatio: Double? = nil
        ) {
            self.compressionRatio = compressionRatio
            self.start = start
            self.end = end
            self.text = text
            self.noSpeechProbability = noSpeechProbability
            self.averageLogProbability = averageLogProbability
        }
    }

    /// What passes and what is held back.
    public struct Review: Sendable, Hashable {
        public var text: String
        public var segments: [TimedSegment]
        public var words: [TimedWord]
        public var flagged: [FlaggedText]

        public var passed: Bool { flagged.isEmpty }
        /// Characters held back: of two answers for the same audio, the one that loses less is kept.
        public var flaggedCharacters: Int { flagged.reduce(0) { $0 + $1.text.count } }
    }

    /// Reviews an answer for the audio `chunk` whose detected speech is `speech` (seconds on the
    /// media's clock).
    public func review(
        text: String, segments: [Segment], words: [TimedWord], chunk: ClosedRange<Double>, speech: [ClosedRange<Double>]
    ) -> Review {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !segments.isEmpty else {
            // One judgement for the whole answer, over all the chunk's speech.
            let whole = Segment(start: chunk.lowerBound, end: chunk.upperBound, text: trimmed)
            let spoken = SpeechRegions.seconds(of: speech, within: chunk)
            if let reason = verdict(whole, spoken: spoken, heard: spoken), !trimmed.isEmpty {
                return Review(text: "", segments: [], words: [], flagged: [FlaggedText(start: chunk.lowerBound, end: chunk.upperBound, text: trimmed, reason: reason)])
            }
            return Review(text: trimmed, segments: [], words: words, flagged: [])
        }
        var kept: [TimedSegment] = []
        var flagged: [FlaggedText] = []
        for segment in segments {
            let body = segment.text.trimmingCharacters(in: .whitespaces)
            let span = segment.start...max(segment.start, segment.end)
            let near = (span.lowerBound - timeTolerance)...(span.upperBound + timeTolerance)
            if !body.isEmpty, let reason = verdict(segment, spoken: SpeechRegions.seconds(of: speech, within: span), heard: SpeechRegions.seconds(of: speech, within: near)) {
                flagged.append(FlaggedText(start: segment.start, end: segment.end, text: body, reason: reason))
            } else {
                kept.append(TimedSegment(start: segment.start, end: segment.end, text: body))
            }
        }
        guard !flagged.isEmpty else {
            return Review(text: trimmed, segments: kept, words: words, flagged: [])
        }
        // A flagged segment's words go with it: those whose middle falls in it.
        let keptWords = words.filter { word in
            let middle = (word.start + word.end) / 2
            return !flagged.contains { $0.start <= middle && middle <= max($0.start, $0.end) }
        }
        let keptText = kept.map(\.text).filter { !$0.isEmpty }.joined(separator: " ")
        return Review(text: keptText, segments: kept, words: keptWords, flagged: flagged)
    }

    /// Why `segment` is held back, if it is. `spoken` is the detected speech within its times,
    /// `heard` within them widened by the tolerance.
    func verdict(_ segment: Segment, spoken: Double, heard: Double) -> FlagReason? {
        let text = segment.text
        if let noSpeech = segment.noSpeechProbability, let logProbability = segment.averageLogProbability,
            noSpeech > noSpeechProbability, logProbability < averageLogProbability
        {
            return .noSpeech
        }
        if heard <= 0 { return .outsideSpeech }
        let characters = text.unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) }.count
        if phrases.contains(HallucinationPhrases.normalized(text)), spoken < max(0.3, Double(characters) / knownPhraseRate) {
            return .knownHallucination
        }
        if isLoop(text) || (segment.compressionRatio ?? 0) > compressionRatio { return .repetition }
        if characters >= shortestTimedText, Double(characters) / max(heard, 0.1) > fastestSpeech {
            return .tooFast
        }
        return nil
    }

    /// The same word `repeatedWord` times in a row, the same 2-4 words `repeatedPhrase` times in
    /// a row, or a long text that compresses like a loop.
    func isLoop(_ text: String) -> Bool {
        if text.utf8.count >= shortestCompressedText, TextCompression.ratio(text) > compressionRatio { return true }
        let words = HallucinationPhrases.normalized(text).split(separator: " ")
        for size in 1...4 where words.count >= size * 2 {
            let needed = size == 1 ? repeatedWord : repeatedPhrase
            var run = 1
            var index = size
            while index + size <= words.count {
                if words[index..<(index + size)] == words[(index - size)..<index] {
                    run += 1
                    if run >= needed { return true }
                    index += size
                } else {
                    run = 1
                    index += 1
                }
            }
        }
        return false
    }
}
