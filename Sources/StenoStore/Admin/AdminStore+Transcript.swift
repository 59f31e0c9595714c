import Foundation
import Logging
public import StenoCore
import StenoInfrastructure
import StenoPostgres

extension AdminStore {
    /// The media and chapters a transcript export reads, all chapters or chapter `chapter`
    /// (1-based) only; `noTranscript` when no chapter has a segment or a merged text.
    public func transcriptSource(mediaID: Int64, chapter: Int? = nil) async throws -> TranscriptSource {
        let media = try await client.query(
            """
            SELECT id, title, source, steno_text_language(language, detected_language, translate) AS language,
                   captions_name_language,
                   duration_seconds, state
            FROM media WHERE id = \(mediaID)
            """
        ).first
        guard let media else { throw Self.noSuchMedia(mediaID) }
        if let chapter {
            _ = try await chapterID(mediaID: mediaID, number: chapter)
        }
        let chapterIndex = chapter.map { $0 - 1 }
        // A chapter's last segment index is one probe of `segments (chapter_id, index)`, not a count.
        let chapterRows = try await client.query(
            """
            SELECT c.id, c.index, c.title, c.start_seconds, c.end_seconds, c.state, c.text, c.merges,
                   (SELECT max(s.index) FROM segments s WHERE s.chapter_id = c.id) AS last_segment
            FROM chapters c
            WHERE c.media_id = \(mediaID) AND (\(chapterIndex)::integer IS NULL OR c.index = \(chapterIndex)::integer)
            ORDER BY c.index
            """)
        var chapters: [Transcript.Chapter] = []
        var ids: [Int64] = []
        var lastSegments: [Int?] = []
        var merges: [Int] = []
        for row in chapterRows {
            chapters.append(
                Transcript.Chapter(
                    number: try row.decode("index", as: Int.self) + 1, title: try row.decode("title"),
                    start: try row.decode("start_seconds"), end: try row.decode("end_seconds"), state: try row.decode("state"),
                    text: try row.decode("text"), segments: []))
            ids.append(try row.decode("id"))
            lastSegments.append(try row.decode("last_segment"))
            merges.append(try row.decode("merges"))
        }
        guard zip(chapters, lastSegments).contains(where: { $1 != nil || $0.text?.isEmpty == false }) else {
            let state = try media.decode("state", as: MediaState.self)
            throw AdminError(
                .noTranscript,
                chapter.map { "chapter \($0) of media \(mediaID) has no transcript yet" } ?? "media \(mediaID) has no transcript yet (it is \(state.rawValue))",
                hint: Self.noTranscriptHint(mediaID: mediaID, state: state))
        }
        var outline = Transcript(
            mediaID: mediaID, title: try media.decode("title"), source: SecretRedactor.redactURLCredentials(in: try media.decode("source")),
            language: try media.decode("language"), durationSeconds: try media.decode("duration_seconds"), chapters: chapters)
        if try media.decode("captions_name_language", as: Bool.self) { outline.captionLanguage = outline.language }
        let speakers = try await self.speakers(mediaID: mediaID)
        // One voice (a narrator) shows no labels: the transcript reads as it did without them.
        if speakers.count >= 2 {
            outline.speakers = speakers.map { Transcript.Speaker(number: $0.number, name: $0.label, talkSeconds: $0.talkSeconds) }
        }
        return TranscriptSource(outline: outline, chapterIDs: ids, lastSegmentIndexes: lastSegments, merges: merges)
    }

    /// Writes `source`'s transcript in `format` through `write`, piece by piece: segments are
    /// read in batches of `batchSize` indexes (`segments (chapter_id, index)`), word times
    /// only for the formats that show or time by them, flagged segments only for JSON, and each
    /// batch's output goes to `write` while the next batch is read. A 40-hour book never sits
    /// in memory whole, as rows or as output.
    ///
    /// Batches are ranges of indexes, not "the next N after the last": with `index > $last
    /// LIMIT N` the planner, which expects a chapter of a few dozen segments, read the rest of
    /// the chapter for every batch (bench/scale). The batches are separate statements, so that
    /// no connection is held between them, however slowly the output is taken. Each reads the
    /// chapter's merge count beside its rows: a chapter merged again during the export
    /// (`steno retry`) ends it with `transcriptChanged` rather than a mix of two transcripts.
    public func exportTranscript(
        _ source: TranscriptSource, format: TranscriptFormat, layout: CaptionLayout = CaptionLayout(), batchSize: Int = 2000,
        write: (String) async throws -> Void
    ) async throws {
        precondition(batchSize > 0, "a batch holds at least one segment")
        var encoder = TranscriptEncoder(format: format, outline: source.outline, layout: layout)
        let words = encoder.readsWords
        let flagged = encoder.readsFlagged
        var output = ""
        for index in source.chapterIDs.indices where encoder.readsSegments(ofChapter: index) {
            guard let last = source.lastSegmentIndexes[index] else { continue }
            var first = 0
            let read = SegmentRead(source: source, chapter: index, words: words, flagged: flagged)
            var batch = try await segments(read, from: first, count: batchSize)
            while true {
                // The next batch is read while this one is written: the export takes about as
                // long as the longer of the two, not their sum.
                let nextFirst = first + batchSize
                let next: Task<[Transcript.Segment], any Error>? =
                    nextFirst <= last
                    ? Task { try await segments(read, from: nextFirst, count: batchSize) } : nil
                do {
                    try encoder.append(batch, chapter: index, to: &output)
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
                first = nextFirst
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
        for index in source.chapterIDs.indices {
            guard let last = source.lastSegmentIndexes[index] else { continue }
            let read = SegmentRead(source: source, chapter: index, words: true, flagged: true)
            for first in stride(from: 0, through: last, by: 5000) {
                transcript.chapters[index].segments += try await segments(read, from: first, count: 5000)
            }
        }
        return transcript
    }

    /// Which chapter a batch reads, what of each segment, and the merge its rows must come from.
    private struct SegmentRead: Sendable {
        var mediaID: Int64
        var chapterID: Int64
        var chapterNumber: Int
        var merges: Int
        var words: Bool
        var flagged: Bool
        /// Speaker number to name, when the media has two or more speakers.
        var speakerLabels: [Int: String]?

        init(source: TranscriptSource, chapter index: Int, words: Bool, flagged: Bool) {
            mediaID = source.outline.mediaID
            chapterID = source.chapterIDs[index]
            chapterNumber = source.outline.chapters[index].number
            merges = source.merges[index]
            self.words = words
            self.flagged = flagged
            speakerLabels = source.outline.speakers.map { Dictionary(uniqueKeysWithValues: $0.map { ($0.number, $0.name) }) }
        }
    }

    /// The segments of a chapter whose index is in `from..<from + count`, in order, read in one
    /// statement with the chapter's merge count; `transcriptChanged` when that is not the count
    /// the export began with.
    private func segments(_ read: SegmentRead, from first: Int, count: Int) async throws -> [Transcript.Segment] {
        // Two texts rather than a parameter, so that a text export never reads or sends the
        // words' JSON (a third of a segment row).
        let wordsColumn: PostgresQuery = read.words ? "s.words::text" : "NULL::text"
        // From the chapter's row, so that a range with no segment left still says which merge
        // it read.
        let rows = try await client.query(
            """
            SELECT c.merges, s.start_seconds, s.end_seconds, s.text, \(wordsColumn) AS words, s.flag, s.speaker
            FROM chapters c
            LEFT JOIN segments s ON s.chapter_id = c.id AND s.index >= \(first) AND s.index < \(first + count)
                                AND (\(read.flagged)::boolean OR s.flag IS NULL)
            WHERE c.id = \(read.chapterID)
            ORDER BY s.index
            """)
        guard let merges = try rows.first?.decode("merges", as: Int.self), merges == read.merges else {
            throw AdminError(
                .transcriptChanged,
                "chapter \(read.chapterNumber) of media \(read.mediaID) was transcribed again while its transcript was read, so what was read mixes two transcripts",
                hint: "export it again: `steno transcript \(read.mediaID)` reads the new one whole")
        }
        // The second voices heard over this batch's stretch (the chapter's overlapping turns).
        var overlaps: [SpeakerTurn] = []
        if read.speakerLabels != nil, let first = rows.first, try first.decode("text", as: String?.self) != nil {
            let lower = try rows.compactMap { try $0.decode("start_seconds", as: Double?.self) }.min() ?? 0
            let upper = try rows.compactMap { try $0.decode("end_seconds", as: Double?.self) }.max() ?? 0
            overlaps = try await client.query(
                """
                SELECT (t->>'start')::float8 AS start, (t->>'end')::float8 AS stop, (t->>'speaker')::int AS speaker
                FROM chapters c, jsonb_array_elements(c.speaker_turns) AS t
                WHERE c.id = \(read.chapterID) AND jsonb_typeof(c.speaker_turns) = 'array' AND (t->>'overlapping')::boolean
                  AND (t->>'end')::float8 > \(lower) AND (t->>'start')::float8 < \(upper)
                ORDER BY 1
                """
            ).map { SpeakerTurn(start: try $0.decode("start"), end: try $0.decode("stop"), speaker: try $0.decode("speaker"), overlapping: true) }
        }
        var segments: [Transcript.Segment] = []
        segments.reserveCapacity(rows.count)
        for row in rows {
            guard let text = try row.decode("text", as: String?.self) else { continue }
            var words = try self.words(from: row.decode("words", as: String?.self))
            if let labels = read.speakerLabels, let timed = words {
                words = timed.map { word in
                    var labelled = word
                    labelled.speaker = word.speakerNumber.flatMap { labels[$0] }
                    return labelled
                }
            }
            let start = try row.decode("start_seconds", as: Double.self)
            let end = try row.decode("end_seconds", as: Double.self)
            let number = try row.decode("speaker", as: Int?.self)
            var others: [String] = []
            for turn in overlaps where turn.end > start && turn.start < end && turn.speaker != number {
                if let name = read.speakerLabels?[turn.speaker], !others.contains(name) { others.append(name) }
            }
            segments.append(
                Transcript.Segment(
                    start: start, end: end, text: text, words: words, flag: try row.decode("flag", as: FlagReason?.self),
                    speaker: number.flatMap { read.speakerLabels?[$0] }, overlapping: others.isEmpty ? nil : others))
        }
        return segments
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
