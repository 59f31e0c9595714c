import Foundation
import StenoCore
import StenoPostgres

extension AdminStore {
    /// The media and chapters a transcript export reads, all chapters or chapter `chapter`
    /// (1-based) only; `noTranscript` when no chapter has a segment or a merged text.
    public func transcriptSource(mediaID: Int64, chapter: Int? = nil) async throws -> TranscriptSource {
        let media = try await client.query(
            "SELECT id, title, source, language, duration_seconds, state FROM media WHERE id = \(mediaID)"
        ).first
        guard let media else { throw Self.noSuchMedia(mediaID) }
        if let chapter {
            _ = try await chapterID(mediaID: mediaID, number: chapter)
        }
        let chapterIndex = chapter.map { $0 - 1 }
        // Whether a chapter has segments is one probe of `segments (chapter_id, index)`, not a count.
        let chapterRows = try await client.query(
            """
            SELECT c.id, c.index, c.title, c.start_seconds, c.end_seconds, c.state, c.text,
                   EXISTS (SELECT 1 FROM segments s WHERE s.chapter_id = c.id) AS has_segments
            FROM chapters c
            WHERE c.media_id = \(mediaID) AND (\(chapterIndex)::integer IS NULL OR c.index = \(chapterIndex)::integer)
            ORDER BY c.index
            """)
        var chapters: [Transcript.Chapter] = []
        var ids: [Int64] = []
        var hasSegments: [Bool] = []
        for row in chapterRows {
            chapters.append(
                Transcript.Chapter(
                    number: try row.decode("index", as: Int.self) + 1, title: try row.decode("title"),
                    start: try row.decode("start_seconds"), end: try row.decode("end_seconds"), state: try row.decode("state"),
                    text: try row.decode("text"), segments: []))
            ids.append(try row.decode("id"))
            hasSegments.append(try row.decode("has_segments"))
        }
        guard zip(chapters, hasSegments).contains(where: { $1 || $0.text?.isEmpty == false }) else {
            let state = try media.decode("state", as: MediaState.self)
            throw AdminError(
                .noTranscript,
                chapter.map { "chapter \($0) of media \(mediaID) has no transcript yet" } ?? "media \(mediaID) has no transcript yet (it is \(state.rawValue))",
                hint: Self.noTranscriptHint(mediaID: mediaID, state: state))
        }
        let outline = Transcript(
            mediaID: mediaID, title: try media.decode("title"), source: SecretRedactor.redactURLCredentials(in: try media.decode("source")),
            language: try media.decode("language"), durationSeconds: try media.decode("duration_seconds"), chapters: chapters)
        return TranscriptSource(outline: outline, chapterHasSegments: hasSegments, chapterIDs: ids)
    }

    /// Writes `source`'s transcript in `format` through `write`, piece by piece: segments are
    /// read in batches of `batchSize` by their chapter's index (`segments (chapter_id, index)`),
    /// word times only for the formats that show or time by them, flagged segments only for
    /// JSON, and each batch's output goes to `write` before the next is read. A 40-hour book
    /// never sits in memory whole, as rows or as output.
    public func exportTranscript(
        _ source: TranscriptSource, format: TranscriptFormat, layout: CaptionLayout = CaptionLayout(), batchSize: Int = 2000,
        write: (String) async throws -> Void
    ) async throws {
        var encoder = TranscriptEncoder(format: format, outline: source.outline, layout: layout)
        let words = encoder.readsWords
        let flagged = encoder.readsFlagged
        var output = ""
        for (index, chapterID) in source.chapterIDs.enumerated() where source.chapterHasSegments[index] && encoder.readsSegments(ofChapter: index) {
            var batch = try await segments(chapterID: chapterID, after: -1, limit: batchSize, words: words, flagged: flagged)
            while true {
                // The next batch is read while this one is written: the export takes about as
                // long as the longer of the two, not their sum.
                let next: Task<SegmentBatch, any Error>? =
                    if batch.segments.count == batchSize, let last = batch.lastIndex {
                        Task { try await segments(chapterID: chapterID, after: last, limit: batchSize, words: words, flagged: flagged) }
                    } else {
                        nil
                    }
                do {
                    try encoder.append(batch.segments, chapter: index, to: &output)
                    if !output.isEmpty {
                        try await write(output)
                        output = ""
                    }
                } catch {
                    next?.cancel()
                    throw error
                }
                guard let next else { break }
                batch = try await next.value
            }
        }
        try encoder.finish(to: &output)
        try await write(output)
    }

    /// The whole transcript in memory, every segment with its words and flag: for the callers
    /// that need the values (the OpenAI endpoint's text), not for exports.
    public func transcript(mediaID: Int64, chapter: Int? = nil) async throws -> Transcript {
        let source = try await transcriptSource(mediaID: mediaID, chapter: chapter)
        var transcript = source.outline
        for (index, chapterID) in source.chapterIDs.enumerated() where source.chapterHasSegments[index] {
            var after = -1
            while true {
                let batch = try await segments(chapterID: chapterID, after: after, limit: 5000, words: true, flagged: true)
                transcript.chapters[index].segments += batch.segments
                guard batch.segments.count == 5000, let last = batch.lastIndex else { break }
                after = last
            }
        }
        return transcript
    }

    /// Up to `limit` segments of a chapter after index `after`, in order, with the last one's index.
    private func segments(chapterID: Int64, after: Int, limit: Int, words: Bool, flagged: Bool) async throws -> SegmentBatch {
        // Two texts rather than a parameter, so that a text export never reads or sends the
        // words' JSON (a third of a segment row).
        let wordsColumn: PostgresQuery = words ? "words::text" : "NULL::text"
        let rows = try await client.query(
            """
            SELECT index, start_seconds, end_seconds, text, \(wordsColumn) AS words, flag
            FROM segments
            WHERE chapter_id = \(chapterID) AND index > \(after) AND (\(flagged)::boolean OR flag IS NULL)
            ORDER BY index
            LIMIT \(literal: limit)
            """)
        var segments: [Transcript.Segment] = []
        segments.reserveCapacity(rows.count)
        var lastIndex: Int?
        for row in rows {
            segments.append(
                Transcript.Segment(
                    start: try row.decode("start_seconds"), end: try row.decode("end_seconds"), text: try row.decode("text"),
                    words: try self.words(from: row.decode("words", as: String?.self)), flag: try row.decode("flag", as: FlagReason?.self)))
            lastIndex = try row.decode("index", as: Int.self)
        }
        return SegmentBatch(segments: segments, lastIndex: lastIndex)
    }

    /// `segments.words`: an array of `{"word", "start", "end"}`, or NULL. A malformed array is
    /// left out (the export then times cues by characters) rather than failing the export.
    func words(from json: String?) -> [Transcript.Word]? {
        guard let json else { return nil }
        do {
            return try WordTimesJSON.decode(json)
        } catch {
            logger.warning("ignoring malformed word times in a segment", metadata: ["error": "\(error)"])
            return nil
        }
    }
}

/// Segments of a chapter read in one statement, and the last one's index (where the next batch starts).
struct SegmentBatch: Sendable {
    var segments: [Transcript.Segment]
    var lastIndex: Int?
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
