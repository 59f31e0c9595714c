/// The formats `steno transcript` writes.
public enum TranscriptFormat: String, Sendable, CaseIterable, Codable {
    case txt
    case srt
    case vtt
    case json
    /// Podcasting 2.0 `<podcast:transcript type="application/json">`.
    case podcast

    /// The format a file name asks for by its extension, such as `book.srt`.
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "txt", "text": self = .txt
        case "srt": self = .srt
        case "vtt", "webvtt": self = .vtt
        case "json": self = .json
        default: return nil
        }
    }

    /// Renders `transcript` in this format. Flagged text (held back by the gates) is in the
    /// JSON alone, marked with its reason; the other formats are what was said. The same
    /// encoder writes exports piece by piece (`TranscriptEncoder`); the whole-transcript
    /// formatters (`PlainTextFormatter` and the others) are the reference its tests compare with.
    public func render(_ transcript: Transcript, layout: CaptionLayout = CaptionLayout()) throws -> String {
        try TranscriptEncoder.encode(transcript, format: self, layout: layout)
    }
}
