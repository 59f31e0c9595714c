import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOPosix
import StenoCore
import StenoInfrastructure
import StenoMedia
import StenoPostgres
import StenoStore
import StenoTranscription

#if canImport(Glibc)
import Glibc
import NIOFoundationEssentialsCompat
#endif

/// The media routes of `/v1`: submit, list, show, the transcript, cancel, retry, focus and
/// delete. They hold the store, how a recording is taken in, and the check of webhook URLs.
struct MediaRoutes: Sendable {
    let store: AdminStore
    let intake: RecordingIntake
    let outbound: OutboundURLCheck
    /// What "since" counts back from.
    let clock: any MonotonicClock
    let logger: Logger

    var routes: [APIRoute] {
        [
            .keyed(.post, "/v1/media", createMedia),
            .keyed(.get, "/v1/media", listMedia),
            .keyed(.get, "/v1/media/{id}", showMedia),
            .keyed(.delete, "/v1/media/{id}", deleteMedia),
            .keyed(.get, "/v1/media/{id}/transcript", transcript),
            .keyed(.post, "/v1/media/{id}/cancel", cancelMedia),
            .keyed(.post, "/v1/media/{id}/retry", retryMedia),
            .keyed(.post, "/v1/media/{id}/focus", focusMedia),
        ]
    }
}

extension MediaRoutes {
    /// `POST /v1/media`: an upload (multipart, streamed to the upload directory), or JSON naming a
    /// URL or a path under the media root. 202 with `Location`; with an `Idempotency-Key` already
    /// used by this tenant, the first media again (`replayed`), and an upload is not kept twice.
    func createMedia(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let principal = try context.require(.submit)
        let idempotencyKey = try Self.idempotencyKey(request)
        if let idempotencyKey, let earlier = try await store.mediaID(tenant: principal.tenant, idempotencyKey: idempotencyKey) {
            return try await submitted(earlier, tenant: principal.tenant, replayed: true)
        }
        let submission: MediaSubmission
        var upload: UploadReceiver.ReceivedFile?
        if Self.isJSON(request) {
            submission = try MediaSubmission(json: Data(buffer: try await request.body.collect(upTo: context.maxUploadSize)))
        } else {
            let form = try await intake.uploads().receive(request, fields: MediaSubmission.formFields)
            upload = form.file
            do {
                submission = try MediaSubmission(form: form)
            } catch {
                await RecordingIntake.remove(upload)
                throw error
            }
        }
        // The object an upload was moved to, until a media names it.
        var stored: String?
        do {
            // The settings first: a bad priority is told before any URL is resolved.
            var media = try submission.options.validated(source: "", tenant: principal.tenant, idempotencyKey: idempotencyKey)
            try RecordingIntake.requireOneSource(submission, upload: upload)
            if let webhook = media.webhookURL {
                try await outbound.check(webhook, field: "webhook")
                media.webhookFromClient = true
            }
            if let url = submission.url {
                upload = try await intake.fetch(url)
                if media.title == nil { media.title = RecordingIntake.title(fromURL: url) }
            }
            // One source was given (checked above), and a URL's is now the fetched file.
            if let upload {
                media.source = upload.path
            } else {
                media.source = try await intake.confined(submission.path!)
            }
            if let upload {
                try await RecordingIntake.checkDecodable(upload)
                (media.source, media.sourceObject) = try await intake.keep(upload)
                if media.source != upload.path { stored = media.source }
            }
            let (enqueued, replayed) = try await store.enqueueOnce(media)
            if replayed {
                await RecordingIntake.remove(upload)
                if let stored { await intake.discard(source: stored) }
            }
            stored = nil
            context.logger.info("media submitted", metadata: [
                "media.id": "\(enqueued.mediaID)", "tenant": "\(principal.tenant)", "replayed": "\(replayed)",
                "upload.bytes": "\(upload?.bytes ?? 0)",
            ])
            return try await submitted(enqueued.mediaID, tenant: principal.tenant, replayed: replayed)
        } catch {
            await RecordingIntake.remove(upload)
            if let stored { await intake.discard(source: stored) }
            throw error
        }
    }

    private func submitted(_ mediaID: Int64, tenant: String, replayed: Bool) async throws -> Response {
        let progress = try await store.progress(of: mediaID, tenant: tenant)
        return try APIJSON.response(
            SubmittedMedia(media: progress, replayed: replayed), status: .accepted,
            headers: [.location: "/v1/media/\(mediaID)"])
    }

    static func isJSON(_ request: Request) -> Bool {
        guard let type = request.headers[.contentType]?.lowercased() else { return false }
        return type.hasPrefix("application/json")
    }

    static func idempotencyKey(_ request: Request) throws -> String? {
        guard let key = request.headers[HTTPField.Name("Idempotency-Key")!] else { return nil }
        guard (1...200).contains(key.count), key.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) else {
            throw APIError.badRequest("Idempotency-Key must be 1 to 200 printable ASCII characters", field: "Idempotency-Key")
        }
        return key
    }

    // MARK: Reading

    /// `GET /v1/media`: newest first, filtered by `state`, `priority`, `since`, `q`; `limit` per
    /// page (1-200, default 50) and `cursor` from the page before.
    func listMedia(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let principal = try context.require(.read)
        let query = request.uri.queryParameters
        var filter = try Self.mediaFilter(
            tenant: principal.tenant, states: query["state"].map(String.init), priorities: query["priority"].map(String.init),
            since: query["since"].map(String.init), text: query["q"].map(String.init), now: clock.date)
        filter.limit = try RouteParameters.integer(query["limit"].map(String.init), field: "limit", in: 1...200) ?? 50
        if let cursor = query["cursor"].map(String.init) {
            guard let before = Int64(cursor), before > 0 else {
                throw APIError.badRequest("cursor must be the next_cursor of a page before", field: "cursor")
            }
            filter.beforeID = before
        }
        let media = try await store.list(filter)
        let next = media.count == filter.limit ? media.last.map { String($0.mediaID) } : nil
        return try APIJSON.response(MediaPage(media: media, nextCursor: next))
    }

    /// A media list's filter from its query (the API's `GET /v1/media` and the web view's list):
    /// states and priorities comma-separated, `since` as `SinceParser` reads it, text in the title
    /// or source. An empty text is no filter.
    static func mediaFilter(
        tenant: String, states: String?, priorities: String?, since: String?, text: String?, now: Date
    ) throws -> AdminStore.MediaFilter {
        var filter = AdminStore.MediaFilter(tenant: tenant)
        if let states {
            filter.states = try states.split(separator: ",").map { name in
                guard let state = MediaState(rawValue: String(name)) else {
                    throw APIError.badRequest(
                        "state must be one or more of \(MediaState.allCases.map(\.rawValue).joined(separator: ", ")), comma-separated, not \(name)",
                        field: "state")
                }
                return state
            }
        }
        if let priorities {
            filter.priorities = try priorities.split(separator: ",").map { name in
                guard let priority = JobPriority(name: String(name)) else {
                    throw APIError.badRequest("priority must be high, medium or low (comma-separated), not \(name)", field: "priority")
                }
                return priority
            }
        }
        if let since {
            guard let date = SinceParser.parse(since, now: now) else {
                throw APIError.badRequest("since must be \(SinceParser.help)", field: "since")
            }
            filter.createdSince = date
        }
        if let text, !text.isEmpty {
            guard text.count <= 200, !text.unicodeScalars.contains("\u{0}") else {
                throw APIError.badRequest("q must be at most 200 characters, without NUL", field: "q")
            }
            filter.text = text
        }
        return filter
    }

    func showMedia(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let principal = try context.require(.read)
        let id = try RouteParameters.mediaID(context)
        // The three statements at once, on three connections: the tenant check is the first's,
        // and the others' rows are dropped unread when it fails. (Holds are read for a finished
        // media too, to be at once, and then left out: a finished media is held by nothing.)
        async let progress = store.progress(of: id, tenant: principal.tenant)
        async let chapters = store.chapterProgress(of: id)
        async let holds = store.holds(of: id)
        let media = try await progress
        return try APIJSON.response(MediaResource(media: media, chapters: try await chapters, holds: media.state.isFinished ? [] : try await holds))
    }

    /// `GET /v1/media/{id}/transcript?format=txt|srt|vtt|json|podcast[&chapter=N]`.
    func transcript(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let principal = try context.require(.read)
        let id = try RouteParameters.mediaID(context)
        let query = request.uri.queryParameters
        let export = try await exportTranscript(
            id, tenant: principal.tenant, format: query["format"].map(String.init) ?? "json", chapter: query["chapter"].map(String.init))
        let name = export.name + "." + (export.format == .podcast ? "json" : export.format.rawValue)
        return Response(
            status: .ok,
            headers: [.contentType: Self.contentType(of: export.format), .contentDisposition: "inline; filename=\"\(name)\""],
            body: exportBody(export.source, format: export.format))
    }

    /// A tenant's media to be rendered in an export format, whole or one chapter (1-based), with
    /// the file name's stem (`media-3-chapter-2`): the API's transcript and the web view's
    /// downloads. A media without a transcript is an error here, before the answer starts.
    func exportTranscript(
        _ id: Int64, tenant: String, format formatName: String, chapter chapterText: String?
    ) async throws -> (source: TranscriptSource, format: TranscriptFormat, name: String) {
        guard let format = TranscriptFormat(rawValue: formatName) else {
            throw APIError.badRequest(
                "format must be one of \(TranscriptFormat.allCases.map(\.rawValue).joined(separator: ", ")), not \(formatName)", field: "format")
        }
        let chapter = try RouteParameters.integer(chapterText, field: "chapter", in: 1...100_000)
        try await store.requireMedia(id, tenant: tenant)
        let source = try await store.transcriptSource(mediaID: id, chapter: chapter)
        return (source, format, "media-\(id)" + (chapter.map { "-chapter-\($0)" } ?? ""))
    }

    /// The export as the answer's body, written a batch of segments at a time as the store reads
    /// them (`AdminStore.exportTranscript`), so that a 40-hour book is never held whole.
    /// An error once the status is sent can only cut the body short; it is logged, so that the
    /// operator sees why (`transcript_changed`: a chapter was merged again meanwhile).
    func exportBody(_ source: TranscriptSource, format: TranscriptFormat) -> ResponseBody {
        let store = store
        let logger = logger
        return ResponseBody { writer in
            do {
                try await store.exportTranscript(source, format: format) { try await writer.write(ByteBuffer(string: $0)) }
            } catch {
                // The store's and the database's errors are the server's to report; anything
                // else is the client leaving.
                let level: Logger.Level = error is AdminError || error is PostgresError ? .warning : .debug
                logger.log(
                    level: level, "a transcript download was cut short",
                    metadata: ["media.id": "\(source.outline.mediaID)", "format": "\(format.rawValue)", "error": "\(error)"])
                throw error
            }
            try await writer.finish(nil)
        }
    }

    static func contentType(of format: TranscriptFormat) -> String {
        switch format {
        case .txt: "text/plain; charset=utf-8"
        case .srt: "application/x-subrip; charset=utf-8"
        case .vtt: "text/vtt; charset=utf-8"
        case .json, .podcast: "application/json; charset=utf-8"
        }
    }

    // MARK: Acting

    func cancelMedia(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let principal = try context.require(.admin)
        let id = try RouteParameters.mediaID(context)
        let chapter = try RouteParameters.integer(request.uri.queryParameters["chapter"].map(String.init), field: "chapter", in: 1...100_000)
        try await store.requireMedia(id, tenant: principal.tenant)
        return try APIJSON.response(try await store.cancel(mediaID: id, chapter: chapter, reason: "cancelled through the API by key \(principal.prefix)"))
    }

    func retryMedia(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let principal = try context.require(.admin)
        let id = try RouteParameters.mediaID(context)
        try await store.requireMedia(id, tenant: principal.tenant)
        return try APIJSON.response(try await store.retry(mediaID: id))
    }

    func focusMedia(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let principal = try context.require(.admin)
        let id = try RouteParameters.mediaID(context)
        guard let chapter = try RouteParameters.integer(request.uri.queryParameters["chapter"].map(String.init), field: "chapter", in: 1...100_000) else {
            throw APIError.badRequest("name the chapter the listener is on: ?chapter=N", field: "chapter")
        }
        try await store.requireMedia(id, tenant: principal.tenant)
        return try APIJSON.response(try await store.focus(mediaID: id, chapter: chapter))
    }

    /// `DELETE /v1/media/{id}`: the media, its transcript and jobs, and its uploaded file.
    func deleteMedia(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let principal = try context.require(.admin)
        return try APIJSON.response(try await deleteMedia(try RouteParameters.mediaID(context), tenant: principal.tenant))
    }

    /// Deletes a tenant's media, and its recording when it was an upload (API and web view alike).
    func deleteMedia(_ id: Int64, tenant: String) async throws -> AdminStore.DeleteOutcome {
        let source = try await store.source(of: id, tenant: tenant)
        let outcome = try await store.delete(mediaID: id)
        await intake.discard(source: source)
        return outcome
    }

}
