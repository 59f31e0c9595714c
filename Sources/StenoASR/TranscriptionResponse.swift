import Foundation
import StenoCore
import StenoSpeech

/// Renders a transcript in the response formats OpenAI defines.
struct TranscriptionResponse {
    var transcript: SpeechTranscript
    var format: TranscriptionRequest.ResponseFormat
    var wordTimestamps: Bool

    var contentType: String {
        switch format {
        case .json, .verboseJSON: "application/json"
        case .text: "text/plain; charset=utf-8"
        case .srt: "application/x-subrip; charset=utf-8"
        case .vtt: "text/vtt; charset=utf-8"
        }
    }

    func body() throws -> Data {
        switch format {
        case .json:
            return try Self.encoder.encode(Simple(text: transcript.text, usage: .init(seconds: transcript.duration)))
        case .verboseJSON:
            return try Self.encoder.encode(verbose)
        case .text:
            return Data((transcript.text + "\n").utf8)
        case .srt:
            return Data(SRTFormatter().format(captionTranscript).utf8)
        case .vtt:
            return Data(WebVTTFormatter().format(captionTranscript).utf8)
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private struct Usage: Encodable {
        var type = "duration"
        var seconds: Double
    }

    private struct Simple: Encodable {
        var text: String
        var usage: Usage
    }

    private struct Verbose: Encodable {
        struct Segment: Encodable {
            var id: Int
            var seek = 0
            var start: Double
            var end: Double
            var text: String
            var tokens: [Int] = []
            var temperature = 0.0
            var avg_logprob = 0.0
            var compression_ratio = 1.0
            var no_speech_prob = 0.0
        }
        var task = "transcribe"
        var language = "english"
        var duration: Double
        var text: String
        var segments: [Segment]
        var words: [RecognizedWord]?
        var usage: Usage
    }

    private var verbose: Verbose {
        Verbose(
            duration: transcript.duration, text: transcript.text,
            segments: transcript.segments.enumerated().map { index, segment in
                Verbose.Segment(id: index, start: Self.rounded(segment.start), end: Self.rounded(segment.end), text: " " + segment.text)
            },
            words: wordTimestamps
                ? transcript.words.map { RecognizedWord(word: $0.word, start: Self.rounded($0.start), end: Self.rounded($0.end)) } : nil,
            usage: Usage(seconds: transcript.duration))
    }

    /// The recording as a one-chapter transcript, for the caption formatters the CLI's export uses.
    private var captionTranscript: Transcript {
        let segments = transcript.segments.map { Transcript.Segment(start: $0.start, end: $0.end, text: $0.text, words: $0.words) }
        let chapter = Transcript.Chapter(
            number: 1, title: nil, start: 0, end: transcript.duration, state: .succeeded, text: transcript.text, segments: segments)
        return Transcript(mediaID: 0, title: nil, source: "upload", language: "en", durationSeconds: transcript.duration, chapters: [chapter])
    }

    private static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}
