import Foundation

/// The transcript in the JSON format of the Podcasting 2.0 `<podcast:transcript>` tag
/// (`type="application/json"`): `version` and a flat list of `segments`, each with `startTime`
/// and `endTime` in seconds from the start of the episode and its `body` text.
///
/// Segments are the transcript's sentences, in order across chapters; players highlight them as
/// the episode plays. Chapters that are not transcribed yet add nothing.
public struct PodcastTranscriptFormatter: Sendable {
    struct Document: Encodable {
        var version = "1.0.0"
        /// The episode's language where it is named (`Transcript.captionLanguage`), as the
        /// `<podcast:transcript language="...">` attribute names it in the feed.
        var language: String?
        var segments: [Segment]
    }

    struct Segment: Encodable {
        var startTime: Double
        var endTime: Double
        var body: String
    }

    public init() {}

    public func format(_ transcript: Transcript) throws -> String {
        let segments = transcript.segments.compactMap { segment -> Segment? in
            let body = segment.text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !body.isEmpty else { return nil }
            // Milliseconds are what players resolve; fewer digits keep the file small.
            return Segment(startTime: Self.rounded(segment.start), endTime: Self.rounded(max(segment.start, segment.end)), body: body)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(Document(language: transcript.captionLanguage, segments: segments)), as: UTF8.self) + "\n"
    }

    static func rounded(_ seconds: Double) -> Double {
        (max(0, seconds) * 1000).rounded() / 1000
    }
}
