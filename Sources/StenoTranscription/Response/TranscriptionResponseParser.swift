import Foundation
import StenoInfrastructure

/// Reads the successful answers of the backends people use into one `Transcription`.
///
/// - OpenAI `verbose_json`: segments, top-level `words`, `usage`.
/// - OpenAI `json` (all the gpt-4o transcribe models give): `text` and `usage` only.
/// - whisper.cpp server: words nested in each segment, language spelled out (`english`).
/// - speaches: OpenAI-shaped, `words` sometimes null, words sometimes in segments too.
/// - vLLM: `json` with duration usage, or `verbose_json` segments without words.
/// - LocalAI: segments whose `start`/`end` are Go `time.Duration`s, integer nanoseconds.
enum TranscriptionResponseParser {
    enum Failure: Error, Equatable {
        /// Not JSON, cut short, or JSON that holds no transcription. `backendMessage` is set when
        /// the body was an error object despite the 2xx status (whisper.cpp does this).
        case malformed(reason: String, backendMessage: String?)
    }

    static func parse(
        _ body: [UInt8], format: TranscriptionResponseFormat, chunkDuration: Duration?
    ) throws(Failure) -> Transcription {
        if format == .text {
            let text = String(decoding: body, as: UTF8.self).trimmingWhitespace
            var transcription = Transcription(text: text, segments: wholeChunkSegment(text: text, duration: chunkDuration?.seconds))
            transcription.timed = false
            return transcription
        }
        let wire: WireTranscription
        do {
            wire = try JSONDecoder().decode(WireTranscription.self, from: Data(body))
        } catch {
            let backendMessage = BackendErrorBody(body).message
            throw .malformed(reason: "the body is not a JSON transcription (\(body.count) bytes)", backendMessage: backendMessage)
        }
        guard wire.text != nil || wire.segments != nil else {
            throw .malformed(reason: "the JSON holds neither text nor segments", backendMessage: BackendErrorBody(body).message)
        }

        var segments = (wire.segments ?? []).compactMap { segment -> TranscriptionSegment? in
            guard let start = segment.start?.value, let end = segment.end?.value else { return nil }
            return TranscriptionSegment(
                start: start, end: end, text: (segment.text ?? "").trimmingWhitespace,
                averageLogProbability: segment.avg_logprob?.value, compressionRatio: segment.compression_ratio?.value,
                noSpeechProbability: segment.no_speech_prob?.value)
        }
        var words = (wire.words ?? []).compactMap(\.wordValue)
        if words.isEmpty {
            words = (wire.segments ?? []).flatMap { ($0.words ?? []).compactMap(\.wordValue) }
        }
        if usesNanoseconds(segments) {
            segments = segments.map { segment in
                var segment = segment
                segment.start /= 1e9
                segment.end /= 1e9
                return segment
            }
        }

        let text = (wire.text ?? segments.map(\.text).joined(separator: " ")).trimmingWhitespace
        let timed = !segments.isEmpty || !words.isEmpty
        if segments.isEmpty {
            segments = wholeChunkSegment(text: text, duration: chunkDuration?.seconds ?? wire.duration?.value)
        }
        var transcription = Transcription(
            text: text, segments: segments, words: words, language: wire.language, duration: wire.duration?.value,
            usage: wire.usage?.usage)
        transcription.timed = timed
        return transcription
    }

    /// A transcription without timestamps still covers its chunk, as one segment.
    private static func wholeChunkSegment(text: String, duration: Double?) -> [TranscriptionSegment] {
        text.isEmpty ? [] : [TranscriptionSegment(start: 0, end: duration ?? 0, text: text)]
    }

    /// LocalAI marshals Go `time.Duration` values: integer nanoseconds. No chunk lasts a million
    /// seconds (11 days), while in nanoseconds any segment past the first millisecond exceeds it.
    private static func usesNanoseconds(_ segments: [TranscriptionSegment]) -> Bool {
        guard let latest = segments.map(\.end).max(), latest > 1e6 else { return false }
        return segments.allSatisfy { $0.start.rounded() == $0.start && $0.end.rounded() == $0.end }
    }
}

// Field names follow the wire format.
private struct WireTranscription: Decodable {
    var text: String?
    var language: String?
    var duration: FlexibleNumber?
    var segments: [WireSegment]?
    var words: [WireWord]?
    var usage: WireUsage?
}

private struct WireSegment: Decodable {
    var start: FlexibleNumber?
    var end: FlexibleNumber?
    var text: String?
    var avg_logprob: FlexibleNumber?
    var compression_ratio: FlexibleNumber?
    var no_speech_prob: FlexibleNumber?
    var words: [WireWord]?
}

private struct WireWord: Decodable {
    var word: String?
    var start: FlexibleNumber?
    var end: FlexibleNumber?
    var probability: FlexibleNumber?

    var wordValue: TranscriptionWord? {
        guard let text = word, let start = start?.value, let end = end?.value else { return nil }
        // As the backend wrote it: a leading space marks the start of a word, and its absence a
        // piece that continues the word before (" 9" ",000"); the worker joins them.
        return TranscriptionWord(word: text, start: start, end: end, probability: probability?.value)
    }
}

private struct WireUsage: Decodable {
    var type: String?
    var seconds: FlexibleNumber?
    var input_tokens: Int?
    var output_tokens: Int?
    var total_tokens: Int?

    var usage: TranscriptionUsage {
        TranscriptionUsage(seconds: seconds?.value, inputTokens: input_tokens, outputTokens: output_tokens, totalTokens: total_tokens)
    }
}

/// A number sent as a JSON number or as a numeric string (early OpenAI `duration`).
private struct FlexibleNumber: Decodable {
    var value: Double?

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) {
            value = number
        } else if let text = try? container.decode(String.self) {
            value = Double(text)
        } else if container.decodeNil() {
            value = nil
        } else {
            throw DecodingError.typeMismatch(Double.self, .init(codingPath: decoder.codingPath, debugDescription: "not a number"))
        }
    }
}
