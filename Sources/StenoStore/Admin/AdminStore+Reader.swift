import Foundation
public import StenoCore
import StenoInfrastructure
import StenoPostgres

extension AdminStore {
    /// One window of one chapter of a tenant's media, for the reader: the chapter `chapter`
    /// (1-based; by default the one playing at `time`, else the first), from segment `from`,
    /// or from a little before the segment playing at `time`. At most
    /// `TranscriptPage.windowSize` segments are read, whatever the chapter's length.
    public func transcriptPage(mediaID: Int64, tenant: String, chapter: Int?, from: Int?, time: Double?) async throws -> TranscriptPage {
        let media = try await client.query(
            "SELECT id, source, title, steno_text_language(language, detected_language, translate) AS language, duration_seconds FROM media WHERE id = \(mediaID) AND tenant = \(tenant)"
        ).first
        guard let media else { throw Self.noSuchMedia(mediaID) }
        let chapterRows = try await client.query(
            "SELECT id, index, title, start_seconds, end_seconds, state FROM chapters WHERE media_id = \(mediaID) ORDER BY index")
        var ids: [Int: Int64] = [:]
        let chapters = try chapterRows.map { row in
            let entry = TranscriptPage.ChapterEntry(
                number: try row.decode("index", as: Int.self) + 1, title: try row.decode("title"), start: try row.decode("start_seconds"),
                end: try row.decode("end_seconds"), state: try row.decode("state"))
            ids[entry.number] = try row.decode("id")
            return entry
        }
        let number: Int
        if let chapter {
            guard ids[chapter] != nil else {
                throw AdminError(
                    .notFound, "media \(mediaID) has \(chapters.count) chapter\(chapters.count == 1 ? "" : "s"); there is no chapter \(chapter)",
                    hint: "chapters are numbered from 1")
            }
            number = chapter
        } else if let time, let playing = chapters.last(where: { $0.start <= time }) {
            number = playing.number
        } else {
            number = chapters.first?.number ?? 1
        }
        var page = TranscriptPage(
            mediaID: mediaID, source: SecretRedactor.redactURLCredentials(in: try media.decode("source")), title: try media.decode("title"), language: try media.decode("language"),
            durationSeconds: try media.decode("duration_seconds"), chapters: chapters, chapter: number, segments: [], hasEarlier: false,
            hasLater: false)
        guard let chapterID = ids[number] else { return page }
        var start = max(0, from ?? 0)
        if from == nil, let time {
            let playing: Int? = try await client.query(
                """
                SELECT index FROM segments WHERE chapter_id = \(chapterID) AND start_seconds <= \(time)
                ORDER BY start_seconds DESC LIMIT 1
                """
            ).first?.decode("index")
            start = TranscriptPage.windowStart(around: playing ?? 0)
        }
        let rows = try await client.query(
            """
            SELECT index, start_seconds, end_seconds, text, words::text AS words, flag, speaker FROM segments
            WHERE chapter_id = \(chapterID) AND index >= \(start)
            ORDER BY index LIMIT \(TranscriptPage.windowSize + 1)
            """)
        page.segments = try rows.prefix(TranscriptPage.windowSize).map { row in
            TranscriptPage.Segment(
                index: try row.decode("index"), start: try row.decode("start_seconds"), end: try row.decode("end_seconds"),
                text: try row.decode("text"), words: words(from: try row.decode("words", as: String?.self)), flag: try row.decode("flag"),
                speaker: try row.decode("speaker"))
        }
        let speakers = try await speakers(mediaID: mediaID)
        if speakers.count >= 2 {
            page.speakers = speakers.map { Transcript.Speaker(number: $0.number, name: $0.label, talkSeconds: $0.talkSeconds) }
        }
        page.hasLater = rows.count > TranscriptPage.windowSize
        page.hasEarlier = start > 0
        return page
    }
}

extension AdminStore {
    /// Failed media of `tenant` whose failure has this class (`unknown` for none): the media the
    /// overview counts as failed in that class.
    public func failedMediaIDs(errorClass: String, tenant: String) async throws -> [Int64] {
        try await troubledMediaIDs(errorClass: errorClass, tenant: tenant, final: true)
    }

    /// Unfinished media of `tenant` whose latest failed job waits to retry after a failure of
    /// this class: the media the overview counts as retrying in that class.
    public func retryingMediaIDs(errorClass: String, tenant: String) async throws -> [Int64] {
        try await troubledMediaIDs(errorClass: errorClass, tenant: tenant, final: false)
    }

    private func troubledMediaIDs(errorClass: String, tenant: String, final: Bool) async throws -> [Int64] {
        try await client.query(
            """
            WITH troubled AS (\(Self.troubledMedia(tenant: tenant)))
            SELECT id FROM troubled WHERE final = \(final) AND error_class = \(errorClass) ORDER BY id
            """
        ).map { try $0.decode("id") }
    }
}
