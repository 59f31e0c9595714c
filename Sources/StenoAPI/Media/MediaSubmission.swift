import Foundation
import StenoCore

/// The body of `POST /v1/media` as JSON: one of `url` or `path`, and the media's settings.
/// (A multipart upload carries the same fields beside its `file`.)
struct MediaSubmission: Sendable {
    var url: String?
    var path: String?
    var title: String?
    var language: String?
    var model: String?
    var prompt: String?
    var priority: String?
    var chapters: String?
    var webhook: String?
    var speakers: String?
    var translate: String?

    static let fields: Set<String> = [
        "url", "path", "title", "language", "model", "prompt", "priority", "chapters", "webhook", "speakers", "translate", "file",
    ]

    init(form: UploadReceiver.Form) throws {
        for (name, values) in form.fields where values.count > 1 {
            throw APIError.badRequest("\(name) is given \(values.count) times; give it once", field: name)
        }
        try self.init(fields: form.fields.compactMapValues(\.first))
    }

    /// A JSON object whose values are strings (or null).
    init(json: Data) throws {
        let object: [String: String?]
        do {
            object = try JSONDecoder().decode([String: String?].self, from: json)
        } catch {
            throw APIError.badRequest(
                "the body must be a JSON object whose values are strings, such as {\"url\": \"https://example.com/talk.mp3\", \"priority\": \"high\"}")
        }
        if object.keys.contains("file") {
            throw APIError.badRequest("a file is sent as multipart/form-data, not inside JSON", field: "file")
        }
        try self.init(fields: object.compactMapValues { $0 })
    }

    /// The multipart form's text fields, each at most once; any other is refused at its header.
    static let formFields = UploadReceiver.Fields(
        accepted: fields, mostParts: Dictionary(uniqueKeysWithValues: fields.map { ($0, 1) }), unknown: unknownField)

    static func unknownField(_ name: String) -> APIError {
        APIError.badRequest("unknown field \(name); the fields are \(Self.fields.sorted().joined(separator: ", "))", field: name)
    }

    init(fields: [String: String]) throws {
        for name in fields.keys.sorted() where !Self.fields.contains(name) { throw Self.unknownField(name) }
        url = fields["url"]
        path = fields["path"]
        title = fields["title"]
        language = fields["language"]
        model = fields["model"]
        prompt = fields["prompt"]
        priority = fields["priority"]
        chapters = fields["chapters"]
        webhook = fields["webhook"]
        speakers = fields["speakers"]
        translate = fields["translate"]
    }

    var options: MediaOptions {
        MediaOptions(title: title, language: language, model: model, prompt: prompt, priority: priority, chapters: chapters, webhook: webhook,
                     speakers: speakers, translate: translate)
    }
}
