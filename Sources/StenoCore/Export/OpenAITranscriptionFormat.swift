import Foundation

/// The `response_format`s of OpenAI's `POST /v1/audio/transcriptions`, rendered from a Steno
/// transcript so that an OpenAI client reads a fleet's answer as it reads OpenAI's. Flagged
/// text (held back by the gates) is left out, as in the text and caption exports.
public enum OpenAITranscriptionFormat: String, Sendable, CaseIterable {
    case json
    case verboseJSON = "verbose_json"
    /// `gpt-4o-transcribe-diarize`'s shape: segments with a `speaker` each, no word times.
    case diarizedJSON = "diarized_json"
    case text
    case srt
    case vtt

    public var contentType: String {
        switch self {
        case .json, .verboseJSON, .diarizedJSON: "application/json"
        case .text: "text/plain; charset=utf-8"
        case .srt: "application/x-subrip; charset=utf-8"
        case .vtt: "text/vtt; charset=utf-8"
        }
    }

    /// The whole text: every kept segment, in order, one space apart.
    public static func text(of transcript: Transcript) -> String {
        transcript.withoutFlagged.segments.map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
            .joined(separator: " ")
    }

    /// The text of one chapter, for a stream's `transcript.text.delta`.
    public static func text(of chapter: Transcript.Chapter) -> String {
        chapter.segments.filter { $0.flag == nil }.map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
            .joined(separator: " ")
    }

    /// `translated`: the answer to `POST /v1/audio/translations`, whose `verbose_json` OpenAI
    /// marks with the task `translate`.
    public func render(_ transcript: Transcript, words: Bool, translated: Bool = false) throws -> String {
        switch self {
        case .json:
            return try Self.encode(Plain(text: Self.text(of: transcript), usage: Usage(seconds: transcript.durationSeconds.map { Int($0.rounded(.up)) })))
        case .verboseJSON:
            let kept = transcript.withoutFlagged.segments
            let segments = kept.enumerated().map { index, segment in
                Verbose.Segment(id: index, start: segment.start, end: segment.end, text: segment.text)
            }
            let allWords = words ? kept.flatMap { $0.words ?? [] }.map { Verbose.Word(word: $0.word, start: $0.start, end: $0.end) } : nil
            return try Self.encode(Verbose(
                task: translated ? "translate" : "transcribe",
                language: transcript.language.map { LanguageCode.spelledOut($0) ?? $0 } ?? "unknown", duration: transcript.durationSeconds ?? kept.last?.end ?? 0,
                text: Self.text(of: transcript), segments: segments, words: allWords))
        case .diarizedJSON:
            let kept = transcript.withoutFlagged.segments.filter { !$0.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
            // One voice: exports carry no labels, and OpenAI's shape still wants one per segment.
            let only = transcript.speakers?.first?.name ?? Transcript.Speaker.defaultName(1)
            return try Self.encode(Diarized(
                duration: transcript.durationSeconds ?? kept.last?.end ?? 0, text: Self.text(of: transcript),
                segments: kept.enumerated().map { index, segment in
                    Diarized.Segment(
                        id: "seg_\(index)", start: segment.start, end: segment.end,
                        text: segment.text.trimmingCharacters(in: .whitespacesAndNewlines), speaker: segment.speaker ?? only)
                },
                usage: Usage(seconds: transcript.durationSeconds.map { Int($0.rounded(.up)) })))
        case .text:
            return Self.text(of: transcript) + "\n"
        case .srt:
            return SRTFormatter().format(transcript.withoutFlagged)
        case .vtt:
            // OpenAI's captions have no header lines; the answer keeps their shape.
            var captions = transcript.withoutFlagged
            captions.captionLanguage = nil
            return WebVTTFormatter().format(captions)
        }
    }

    struct Usage: Encodable {
        var type = "duration"
        var seconds: Int?
    }

    struct Plain: Encodable {
        var text: String
        var usage: Usage
    }

    struct Verbose: Encodable {
        struct Segment: Encodable {
            var id: Int
            var seek = 0
            var start: Double
            var end: Double
            var text: String
            var tokens: [Int] = []
            var temperature = 0.0
            var avgLogprob = 0.0
            var compressionRatio = 0.0
            var noSpeechProb = 0.0

            enum CodingKeys: String, CodingKey {
                case id, seek, start, end, text, tokens, temperature
                case avgLogprob = "avg_logprob"
                case compressionRatio = "compression_ratio"
                case noSpeechProb = "no_speech_prob"
            }
        }

        struct Word: Encodable {
            var word: String
            var start: Double
            var end: Double
        }

        var task = "transcribe"
        var language: String
        var duration: Double
        var text: String
        var segments: [Segment]
        var words: [Word]?
    }

    struct Diarized: Encodable {
        struct Segment: Encodable {
            var type = "transcript.text.segment"
            var id: String
            var start: Double
            var end: Double
            var text: String
            var speaker: String
        }

        var task = "transcribe"
        var duration: Double
        var text: String
        var segments: [Segment]
        var usage: Usage
    }

    private static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
