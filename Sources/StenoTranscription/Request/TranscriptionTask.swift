/// What a backend is asked to do with a chunk's audio.
public enum TranscriptionTask: String, Sendable, Codable, CaseIterable {
    /// Text in the language spoken: `POST /v1/audio/transcriptions`.
    case transcribe
    /// Text in English, whatever the language spoken: `POST /v1/audio/translations`, as OpenAI's
    /// whisper-1 defines it (no `language`, no `timestamp_granularities`).
    case translate
}
