import Foundation
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
            return Data(cues(separator: ",").enumerated().map { "\($0.offset + 1)\n\($0.element)" }.joined(separator: "\n").utf8)
        case .vtt:
            return Data(("WEBVTT\n\n" + cues(separator: ".").joined(separator: "\n")).utf8)
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

    /// `start --> end\ntext\n` per segment, with milliseconds after `separator`.
    private func cues(separator: String) -> [String] {
        transcript.segments.map { segment in
            "\(Self.timestamp(segment.start, separator)) --> \(Self.timestamp(segment.end, separator))\n\(segment.text)\n"
        }
    }

    static func timestamp(_ seconds: Double, _ separator: String) -> String {
        let milliseconds = Int((seconds * 1000).rounded())
        return String(
            format: "%02d:%02d:%02d%@%03d", milliseconds / 3_600_000, milliseconds / 60_000 % 60, milliseconds / 1000 % 60,
            separator, milliseconds % 1000)
    }

    private static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}
