/// The unit of work a job row stands for; see docs/architecture.md, "Data and jobs".
public enum JobKind: String, Sendable, CaseIterable, Codable {
    /// Probe the source: audio stream, duration, chapters.
    case media
    /// Plan the chunks of one chapter.
    case chapter
    /// Extract, encode and transcribe one chunk.
    case chunk
    /// Merge the chunks of a chapter into its transcript.
    case merge
}
