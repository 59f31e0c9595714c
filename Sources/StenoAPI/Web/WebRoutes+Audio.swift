import Foundation
import HTTPTypes
import Hummingbird
import StenoCore
import StenoInfrastructure
import StenoObjectStore
import StenoStore

extension WebRoutes {
    /// `GET /media/{id}/audio`: the recording, with HTTP Range requests, so that the reader's
    /// player seeks anywhere in a long book by fetching only the part it plays.
    func audio(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let principal = try context.require(.read)
        let id = try RouteParameters.mediaID(context)
        let source = try await store.source(of: id, tenant: principal.tenant)
        // A recording in the object store: a link that reads it for a few minutes, made only
        // after the tenant check above, and not kept by the browser past its life.
        if let link = playbackLink(source) {
            return Response(status: .found, headers: [.location: link, .cacheControl: "no-store", HTTPField.Name("Referrer-Policy")!: "no-referrer"])
        }
        let file = await Self.playableFile(source)
        guard let path = file.path else { throw APIError.notFound(file.problem ?? "the recording cannot be played here") }
        let size = file.size
        var headers: HTTPFields = [
            .contentType: Self.audioType(of: path), .acceptRanges: "bytes", .cacheControl: "private, max-age=3600",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        ]
        switch ByteRangeRequest(header: request.headers[.range], size: size) {
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        case .whole:
            headers[.contentLength] = String(size)
            guard size > 0 else { return Response(status: .ok, headers: headers) }
            let body = try await FileIO().loadFile(path: path, range: 0...Int(size - 1), context: context)
            return Response(status: .ok, headers: headers, body: body)
        case let .part(range):
            headers[.contentRange] = ByteRangeRequest.contentRange(range, size: size)
            headers[.contentLength] = String(range.upperBound - range.lowerBound + 1)
            let body = try await FileIO().loadFile(path: path, range: Int(range.lowerBound)...Int(range.upperBound), context: context)
            return Response(status: .partialContent, headers: headers, body: body)
        }
    }

    /// A short-lived signed link to a recording in this server's object store; nil for any
    /// other source.
    func playbackLink(_ source: String) -> String? {
        guard let objects, let key = try? objects.key(ofSource: source) else { return nil }
        return objects.readLink(key, lifetime: objects.configuration.playbackLinkLifetime)
    }

    /// What a browser plays the file as, by its name: uploads keep the client's extension.
    static func audioType(of path: String) -> String {
        switch path.split(separator: ".").last?.lowercased() {
        case "mp3": "audio/mpeg"
        case "m4a", "m4b", "aac", "mp4": "audio/mp4"
        case "wav": "audio/wav"
        case "flac": "audio/flac"
        case "ogg", "oga", "opus": "audio/ogg"
        case "webm": "audio/webm"
        case "mkv", "mka": "video/x-matroska"
        case "mov": "video/quicktime"
        default: "application/octet-stream"
        }
    }

    /// `GET /media/{id}/download?format=...[&chapter=N]`: an export as a file to save.
    func download(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let principal = try context.require(.read)
        let id = try RouteParameters.mediaID(context)
        let query = try WebPages.query(request)
        let export = try await media.exportTranscript(id, tenant: principal.tenant, format: query["format"] ?? "txt", chapter: query["chapter"])
        let name = export.name + (export.format == .podcast ? ".podcast.json" : "." + export.format.rawValue)
        return Response(
            status: .ok,
            headers: [.contentType: MediaRoutes.contentType(of: export.format), .contentDisposition: "attachment; filename=\"\(name)\"", .cacheControl: "no-store"],
            body: media.exportBody(export.source, format: export.format))
    }
}
