import Foundation
import HTTPTypes
import Hummingbird
import StenoCore
import StenoStore

/// The event stream of a tenant's media (`/v1/events`, and the web view's `/events`).
struct EventRoutes: Sendable {
    let store: AdminStore
    let hub: ProgressHub

    var routes: [APIRoute] {
        [.keyed(.get, "/v1/events", events)]
    }
}

extension EventRoutes {
    /// `GET /v1/events[?media=1,2]`: Server-Sent Events of the tenant's media. Each change is a
    /// `progress` event whose data is the media as `GET /v1/media` lists it; `resync` means
    /// changes may have been missed. With `media`, only those media, and their current state
    /// first.
    func events(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let principal = try context.require(.read)
        var only: Set<Int64>?
        if let list = request.uri.queryParameters["media"].map(String.init) {
            only = try Set(list.split(separator: ",").map { text in
                guard let id = Int64(text), id > 0 else {
                    throw APIError.badRequest("media must be media ids, comma-separated, not \(text)", field: "media")
                }
                return id
            })
            guard only!.count <= 1000 else { throw APIError.badRequest("follow at most 1000 media in one stream", field: "media") }
        }
        // Subscribed before the snapshot is read, so that no change falls between the two.
        let subscription = hub.subscribe(tenant: principal.tenant)
        let snapshot: [MediaProgress]
        do {
            if let only {
                snapshot = try await store.progressWithTenants(of: only.sorted()).filter { $0.tenant == principal.tenant }.map(\.progress)
            } else {
                snapshot = []
            }
        } catch {
            hub.unsubscribe(subscription)
            throw error
        }
        let hub = hub
        let following = only
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache", HTTPField.Name("X-Accel-Buffering")!: "no"],
            body: ResponseBody { writer in
                defer { hub.unsubscribe(subscription) }
                var sequence = 0
                try await writer.write(ByteBuffer(string: "retry: 2000\n: following media of tenant \(principal.tenant)\n\n"))
                for progress in snapshot {
                    sequence += 1
                    try await writer.write(try Self.serverSentEvent("progress", id: sequence, progress))
                }
                for await event in subscription.events {
                    switch event {
                    case let .progress(progress):
                        if let following, !following.contains(progress.mediaID) { continue }
                        sequence += 1
                        try await writer.write(try Self.serverSentEvent("progress", id: sequence, progress))
                    case .resync:
                        sequence += 1
                        try await writer.write(ByteBuffer(string: "id: \(sequence)\nevent: resync\ndata: {}\n\n"))
                    case .keepalive:
                        try await writer.write(ByteBuffer(string: ": keepalive\n\n"))
                    }
                }
                try await writer.finish(nil)
            })
    }

    static func serverSentEvent(_ name: String, id: Int, _ value: some Encodable) throws -> ByteBuffer {
        // JSON from the encoder has no raw newlines, so it fits one `data:` line.
        let json = try APIJSON.encoder.encode(value)
        var buffer = ByteBuffer(string: "id: \(id)\nevent: \(name)\ndata: ")
        buffer.writeBytes(json)
        buffer.writeString("\n\n")
        return buffer
    }
}
