import Foundation

/// The transcript as JSON: the media, its chapters, their segments and word times, with
/// snake_case keys (see `Transcript.CodingKeys`) and times in seconds on the media's clock.
public struct TranscriptJSONFormatter: Sendable {
    public init() {}

    public func format(_ transcript: Transcript) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(transcript), as: UTF8.self) + "\n"
    }
}
