/// The `response_format` asked of the backend. Subtitle formats are left out: Steno makes
/// its own SRT and VTT from segments merged across chunks.
public enum TranscriptionResponseFormat: String, Sendable, CaseIterable {
    /// `{text, usage}`: all the gpt-4o transcribe models return. No timestamps.
    case json
    /// Segments with times, top-level or nested words, language and duration.
    case verboseJSON = "verbose_json"
    /// The bare text. No timestamps.
    case text
}
