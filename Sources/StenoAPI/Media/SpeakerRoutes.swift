import Foundation
import Hummingbird
import NIOFoundationEssentialsCompat
import StenoCore
import StenoStore

/// Who speaks in a media, and the names given to them.
struct SpeakerRoutes: Sendable {
    let store: AdminStore

    var routes: [APIRoute] {
        [
            .keyed(.get, "/v1/media/{id}/speakers", speakers),
            .keyed(.put, "/v1/media/{id}/speakers/{number}", nameSpeaker),
        ]
    }
}

extension SpeakerRoutes {
    /// `GET /v1/media/{id}/speakers`: who speaks in the media, by number, with talk time and the
    /// name (given, or recognised from one of the tenant's voice profiles, with its similarity).
    func speakers(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let principal = try context.require(.read)
        let id = try RouteParameters.mediaID(context)
        try await store.requireMedia(id, tenant: principal.tenant)
        return try APIJSON.response(["speakers": try await store.speakers(mediaID: id)])
    }

    /// `PUT /v1/media/{id}/speakers/{number}` with `{"name": "Ada"}`: names the speaker, and
    /// keeps the voice as a profile of the tenant, which names it in the tenant's later media;
    /// `{"name": null}` takes a name away (a wrong match) for this media.
    func nameSpeaker(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let principal = try context.require(.submit)
        let id = try RouteParameters.mediaID(context)
        guard let number = try RouteParameters.integer(context.parameters.get("number"), field: "number", in: 1...10_000) else {
            throw APIError.badRequest("name the speaker by its number, as GET /v1/media/\(id)/speakers lists it", field: "number")
        }
        struct Naming: Decodable {
            var name: String?
        }
        let body = try await request.body.collect(upTo: 16 << 10)
        let naming: Naming
        do {
            naming = try JSONDecoder().decode(Naming.self, from: Data(buffer: body))
        } catch {
            throw APIError.badRequest("send JSON such as {\"name\": \"Ada Lovelace\"}, or {\"name\": null} to take a name away", field: "name")
        }
        try await store.requireMedia(id, tenant: principal.tenant)
        if let name = naming.name {
            return try APIJSON.response(try await store.renameSpeaker(mediaID: id, number: number, name: name))
        }
        try await store.unnameSpeaker(mediaID: id, number: number)
        guard let speaker = try await store.speakers(mediaID: id).first(where: { $0.number == number }) else {
            throw APIError.notFound("media \(id) has no speaker \(number)")
        }
        return try APIJSON.response(speaker)
    }
}
