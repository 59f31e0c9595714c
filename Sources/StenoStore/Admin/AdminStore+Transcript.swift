import Foundation
import StenoCore
import StenoPostgres

extension AdminStore {
    /// The transcript of a media, or of chapter `chapter` (1-based) only, from its segments.
    /// Chapters not transcribed yet come with no segments; `noTranscript` when none has any.
    public func transcript(mediaID: Int64, chapter: Int? = nil) async throws -> Transcript {
        let media = try await client.query(
            "SELECT id, title, source, language, duration_seconds, state FROM media WHERE id = \(mediaID)"
        ).first
        guard let media else { throw Self.noSuchMedia(mediaID) }
        if let chapter {
            _ = try await chapterID(mediaID: mediaID, number: chapter)
        }
        let chapterIndex = chapter.map { $0 - 1 }
        let chapterRows = try await client.query(
            """
            SELECT id, index, title, start_seconds, end_seconds, state, text FROM chapters
            WHERE media_id = \(mediaID) AND (\(chapterIndex)::integer IS NULL OR index = \(chapterIndex)::integer)
            ORDER BY index
            """)
        let segmentRows = try await client.query(
            """
            SELECT s.chapter_id, s.start_seconds, s.end_seconds, s.text, s.words::text AS words, s.flag
            FROM segments s JOIN chapters c ON c.id = s.chapter_id
            WHERE s.media_id = \(mediaID) AND (\(chapterIndex)::integer IS NULL OR c.index = \(chapterIndex)::integer)
            ORDER BY c.index, s.index
            """)
        var segmentsByChapter: [Int64: [Transcript.Segment]] = [:]
        for row in segmentRows {
            let segment = Transcript.Segment(
                start: try row.decode("start_seconds"), end: try row.decode("end_seconds"), text: try row.decode("text"),
                words: try words(from: row.decode("words", as: String?.self)), flag: try row.decode("flag", as: FlagReason?.self))
            segmentsByChapter[try row.decode("chapter_id"), default: []].append(segment)
        }
        let chapters = try chapterRows.map { row in
            let id: Int64 = try row.decode("id")
            return Transcript.Chapter(
                number: try row.decode("index", as: Int.self) + 1, title: try row.decode("title"),
                start: try row.decode("start_seconds"), end: try row.decode("end_seconds"), state: try row.decode("state"),
                text: try row.decode("text"), segments: segmentsByChapter[id] ?? [])
        }
        guard chapters.contains(where: { !$0.segments.isEmpty || $0.text?.isEmpty == false }) else {
            let state = try media.decode("state", as: MediaState.self)
            throw AdminError(
                .noTranscript,
                chapter.map { "chapter \($0) of media \(mediaID) has no transcript yet" } ?? "media \(mediaID) has no transcript yet (it is \(state.rawValue))",
                hint: Self.noTranscriptHint(mediaID: mediaID, state: state))
        }
        return Transcript(
            mediaID: mediaID, title: try media.decode("title"), source: SecretRedactor.redactURLCredentials(in: try media.decode("source")),
            language: try media.decode("language"), durationSeconds: try media.decode("duration_seconds"), chapters: chapters)
    }

    /// `segments.words`: an array of `{"word", "start", "end"}`, or NULL. A malformed array is
    /// left out (the export then times cues by characters) rather than failing the export.
    func words(from json: String?) -> [Transcript.Word]? {
        guard let json else { return nil }
        do {
            return try JSONDecoder().decode([Transcript.Word].self, from: Data(json.utf8))
        } catch {
            logger.warning("ignoring malformed word times in a segment", metadata: ["error": "\(error)"])
            return nil
        }
    }
}

extension AdminStore {
    /// What to do about a media without a transcript depends on why it has none.
    static func noTranscriptHint(mediaID: Int64, state: MediaState) -> String {
        switch state {
        case .failed:
            "it failed: `steno status \(mediaID)` says why, and `steno retry \(mediaID)` runs what failed again"
        case .cancelled:
            "it was cancelled: `steno retry \(mediaID)` resumes it"
        default:
            "`steno wait \(mediaID)` waits until it is done"
        }
    }
}
