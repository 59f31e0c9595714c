import Foundation
import HTTPTypes
import Hummingbird
import Logging
import StenoCore
import StenoInfrastructure
import StenoStore
import StenoVoice

/// OpenAI's transcription endpoint, for audio of any length, and its model list.
struct OpenAIRoutes: Sendable {
    let store: AdminStore
    let hub: ProgressHub
    let intake: RecordingIntake
    /// What measures `known_speaker_references[]`; nil where the server has no speaker model.
    let speakerEncoder: SpeakerEncoder?
    let transcriptionTimeout: Duration
    let clock: any MonotonicClock

    var routes: [APIRoute] {
        [
            .keyed(.post, "/v1/audio/transcriptions") { request, context in try await openAITranscription(request, context, translate: false) },
            .keyed(.post, "/v1/audio/translations") { request, context in try await openAITranscription(request, context, translate: true) },
            .keyed(.get, "/v1/models") { request, context in try models(request, context) },
        ]
    }
}

extension OpenAIRoutes {
    /// OpenAI's translation request fields; `temperature` is accepted and has no effect.
    static let openAITranslationFields: Set<String> = ["model", "prompt", "response_format", "temperature"]

    /// OpenAI's transcription request fields; others OpenAI defines (`temperature`,
    /// `chunking_strategy`, `include[]`) are accepted and have no effect.
    static let openAIFields: Set<String> = [
        "model", "language", "prompt", "response_format", "timestamp_granularities[]", "timestamp_granularities", "stream",
        "temperature", "chunking_strategy", "include[]", "known_speaker_names[]", "known_speaker_references[]",
        // Steno's own: how many speakers (auto, off, N or MIN-MAX), as `steno enqueue --speakers`.
        "speakers",
    ]

    /// `POST /v1/audio/transcriptions`, as OpenAI defines it, for audio of any length: the upload
    /// becomes a media of the key's tenant, the fleet splits and transcribes it, and the answer
    /// comes when the merged transcript is ready. With `stream=true`, Server-Sent Events of
    /// `transcript.text.delta` as chapters finish, then `transcript.text.done`.
    /// `POST /v1/audio/translations` (`translate`) is the same for a media translated into English.
    func openAITranscription(_ request: Request, _ context: APIRequestContext, translate: Bool) async throws -> Response {
        let principal = try context.require(.submit)
        let form = try await intake.uploads().receive(request, fields: OpenAITranscriptionPlan.fields(translate: translate))
        // Once the media is enqueued its upload is its source: an answer that fails after that
        // (a timeout, a failed media) leaves the file for the media that goes on.
        var enqueuedMedia = false
        // The object the upload was moved to, until a media names it.
        var stored: String?
        do {
            let plan = try OpenAITranscriptionPlan(form: form, translate: translate)
            guard let file = form.file else {
                throw APIError.badRequest("send the recording as the multipart field file", field: "file")
            }
            let title = file.clientFilename.map { String($0.unicodeScalars.filter { $0 != "\u{0}" }.prefix(200)) }
            var media = try MediaOptions(
                title: title, language: plan.language, prompt: plan.prompt, speakers: plan.speakers, translate: translate ? "true" : nil
            ).validated(source: file.path, tenant: principal.tenant)
            try await RecordingIntake.checkDecodable(file)
            // Measured before the media exists: a reference that cannot be read refuses the request.
            let knownVoices = try await knownSpeakerVoices(plan.knownSpeakers)
            (media.source, media.sourceObject) = try await intake.keep(file)
            if media.source != file.path { stored = media.source }
            // Subscribed before the media exists, so that no change is missed.
            let subscription = hub.subscribe(tenant: principal.tenant)
            let enqueued: AdminStore.EnqueuedMedia
            do {
                enqueued = try await store.enqueueOnce(media, knownSpeakers: knownVoices).media
                enqueuedMedia = true
            } catch {
                hub.unsubscribe(subscription)
                throw error
            }
            context.logger.info(translate ? "translation requested" : "transcription requested", metadata: [
                "media.id": "\(enqueued.mediaID)", "tenant": "\(principal.tenant)", "upload.bytes": "\(file.bytes)", "stream": "\(plan.stream)",
            ])
            let follower = TranscriptionFollower(
                store: store, mediaID: enqueued.mediaID, subscription: subscription, deadline: clock.now + transcriptionTimeout,
                clock: clock)
            let headers: HTTPFields = [HTTPField.Name("X-Steno-Media-Id")!: String(enqueued.mediaID)]
            if plan.stream {
                return streamed(follower, headers: headers)
            }
            defer { hub.unsubscribe(subscription) }
            let transcript = try await follower.waitForTranscript()
            var answerHeaders = headers
            answerHeaders[.contentType] = plan.format.contentType
            return Response(
                status: .ok, headers: answerHeaders,
                body: ResponseBody(byteBuffer: ByteBuffer(string: try plan.format.render(transcript, words: plan.words, translated: translate))))
        } catch {
            if !enqueuedMedia {
                await RecordingIntake.remove(form.file)
                if let stored { await intake.discard(source: stored) }
            }
            throw error
        }
    }

    private func streamed(_ follower: TranscriptionFollower, headers: HTTPFields) -> Response {
        var headers = headers
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        let hub = hub
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            defer { hub.unsubscribe(follower.subscription) }
            do {
                let transcript = try await follower.followChapters { delta in
                    try await writer.write(Self.openAIEvent(["type": "transcript.text.delta", "delta": delta]))
                }
                try await writer.write(Self.openAIEvent(["type": "transcript.text.done", "text": OpenAITranscriptionFormat.text(of: transcript)]))
            } catch let error as APIError {
                // The status line is gone; OpenAI's clients read an `error` object in the stream.
                try await writer.write(Self.openAIEvent(["error": ["message": error.message, "type": error.type, "code": error.code]]))
            }
            try await writer.finish(nil)
        })
    }

    static func openAIEvent(_ object: [String: any Sendable]) -> ByteBuffer {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        var buffer = ByteBuffer(string: "data: ")
        buffer.writeBytes(data)
        buffer.writeString("\n\n")
        return buffer
    }

    /// `GET /v1/models`: OpenAI clients list models; the fleet's backends decide the model, so
    /// there is one, `steno`.
    func models(_ request: Request, _ context: APIRequestContext) throws -> Response {
        _ = try context.require(.read)
        struct Model: Encodable { var id = "steno"; var object = "model"; var created = 0; var ownedBy = "steno" }
        struct Models: Encodable { var object = "list"; var data = [Model()] }
        return try APIJSON.response(Models())
    }
}

/// The fields of a transcription request, checked.
struct OpenAITranscriptionPlan: Sendable {
    var format: OpenAITranscriptionFormat
    var words: Bool
    var stream: Bool
    var language: String?
    var prompt: String?
    var speakers: String?
    /// `known_speaker_names[]` with their `known_speaker_references[]` (data URLs of audio).
    var knownSpeakers: [(name: String, reference: String)]

    /// The fields a request takes, refused at their header otherwise: a client cannot make the
    /// server hold fields it would refuse once they were all read.
    static func fields(translate: Bool) -> UploadReceiver.Fields {
        let known = translate ? OpenAIRoutes.openAITranslationFields : OpenAIRoutes.openAIFields
        return UploadReceiver.Fields(
            accepted: known, mostParts: ["known_speaker_names[]": mostKnownSpeakers, "known_speaker_references[]": mostKnownSpeakers],
            unknown: { name in
                APIError.badRequest(
                    "unknown field \(name)" + (translate ? "; a translation takes \(known.sorted().joined(separator: ", ")) and file" : ""), field: name)
            })
    }

    /// As OpenAI takes.
    static let mostKnownSpeakers = 4

    init(form: UploadReceiver.Form, translate: Bool = false) throws {
        let rules = Self.fields(translate: translate)
        for name in form.fields.keys.sorted() where !rules.accepted.contains(name) { throw rules.unknown(name) }
        guard form.field("model")?.allSatisfy(\.isWhitespace) == false else {
            throw APIError.badRequest("model is required (any name: the fleet's backends decide the model)", field: "model")
        }
        let formatName = form.field("response_format") ?? "json"
        // A translation has no speakers to name: OpenAI's translations take no diarized_json.
        let formats = OpenAITranscriptionFormat.allCases.filter { !translate || $0 != .diarizedJSON }
        guard let format = OpenAITranscriptionFormat(rawValue: formatName), formats.contains(format) else {
            throw APIError.badRequest(
                "response_format must be one of \(formats.map(\.rawValue).joined(separator: ", ")), not \(formatName)",
                field: "response_format")
        }
        let granularities = (form.fields["timestamp_granularities[]"] ?? []) + (form.fields["timestamp_granularities"] ?? [])
        for granularity in granularities where granularity != "word" && granularity != "segment" {
            throw APIError.badRequest("timestamp_granularities[] must be word or segment, not \(granularity)", field: "timestamp_granularities[]")
        }
        if !granularities.isEmpty, format != .verboseJSON {
            throw APIError.badRequest("timestamp_granularities[] needs response_format verbose_json", field: "timestamp_granularities[]")
        }
        switch form.field("stream")?.lowercased() {
        case nil, "false": stream = false
        case "true": stream = true
        case let other?: throw APIError.badRequest("stream must be true or false, not \(other)", field: "stream")
        }
        self.format = format
        words = granularities.contains("word")
        language = form.field("language").flatMap { $0.isEmpty ? nil : $0 }
        prompt = form.field("prompt").flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
        speakers = form.field("speakers")
        let names = form.fields["known_speaker_names[]"] ?? []
        let references = form.fields["known_speaker_references[]"] ?? []
        guard names.count == references.count else {
            throw APIError.badRequest(
                "known_speaker_names[] and known_speaker_references[] come in pairs: \(names.count) names, \(references.count) references",
                field: "known_speaker_references[]")
        }
        guard names.count <= Self.mostKnownSpeakers else {
            throw APIError.badRequest("at most \(Self.mostKnownSpeakers) known speakers, as OpenAI takes", field: "known_speaker_names[]")
        }
        knownSpeakers = Array(zip(names, references))
    }
}
