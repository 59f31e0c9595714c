import Foundation

/// The message and code in a backend's error body, whichever shape it has:
/// OpenAI `{"error": {"message", "type", "code"}}`, whisper.cpp `{"error": "text"}`,
/// FastAPI `{"detail": "text"}`, `{"detail": [{"msg": ...}]}` or `{"detail": {...}}` (any of these
/// shapes inside, as faster-whisper-server wraps OpenAI's), `{"message": ...}`, or plain text.
///
/// The message is untrusted: callers redact secrets from it before keeping it.
struct BackendErrorBody {
    static let maximumMessageLength = 400

    var message: String?
    /// OpenAI's `error.code`, or `error.type` when there is no code: `rate_limit_exceeded`,
    /// `insufficient_quota`, `invalid_api_key`.
    var code: String?
    var type: String?

    init(_ body: [UInt8]) {
        guard !body.isEmpty else { return }
        if let object = try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) {
            read(object)
        } else {
            let text = String(decoding: body, as: UTF8.self)
            // A plain-text or HTML error page (from a proxy, say): keep it only if it reads as text.
            if !text.contains("\u{FFFD}") { message = Self.shortened(Self.looksLikeHTML(text) ? Self.textOfHTML(text) : text) }
        }
    }

    private mutating func read(_ object: Any) {
        guard let dictionary = object as? [String: Any] else {
            if let text = object as? String { message = Self.shortened(text) }
            return
        }
        if let error = dictionary["error"] as? [String: Any] {
            message = (error["message"] as? String).map(Self.shortened)
            type = error["type"] as? String
            code = (error["code"] as? String) ?? type
        } else if let error = dictionary["error"] as? String {
            message = Self.shortened(error)
        } else if let detail = dictionary["detail"] as? String {
            message = Self.shortened(detail)
        } else if let details = dictionary["detail"] as? [[String: Any]] {
            let messages = details.compactMap { detail -> String? in
                guard let text = detail["msg"] as? String else { return nil }
                // FastAPI's validation errors say where: ["body", "response_format"].
                let location = (detail["loc"] as? [Any])?.map { "\($0)" }.filter { $0 != "body" }.joined(separator: ".")
                return location.map { $0.isEmpty ? text : "\($0): \(text)" } ?? text
            }
            message = messages.isEmpty ? nil : Self.shortened(messages.joined(separator: "; "))
        } else if let detail = dictionary["detail"] as? [String: Any] {
            read(detail)
        } else if let text = dictionary["message"] as? String {
            message = Self.shortened(text)
        }
    }

    private static func looksLikeHTML(_ text: String) -> Bool {
        let start = text.trimmingWhitespace.prefix(64).lowercased()
        return start.hasPrefix("<!doctype html") || start.hasPrefix("<html")
    }

    /// The text between the tags, without the head: what a person would read on the page.
    static func textOfHTML(_ html: String) -> String {
        var html = Substring(html)
        if let headStart = html.range(of: "<head", options: .caseInsensitive),
           let headEnd = html.range(of: "</head>", options: .caseInsensitive, range: headStart.upperBound..<html.endIndex) {
            html = html[..<headStart.lowerBound] + html[headEnd.upperBound...]
        }
        var text = ""
        var insideTag = false
        for character in html {
            if character == "<" {
                insideTag = true
                text.append(" ")
            } else if character == ">" {
                insideTag = false
            } else if !insideTag {
                text.append(character)
            }
        }
        return text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// One line, at most `maximumMessageLength` characters: it is stored on rows and printed.
    static func shortened(_ text: String) -> String {
        let oneLine = text.split(whereSeparator: { $0.isNewline || $0 == "\t" }).joined(separator: " ").trimmingWhitespace
        guard oneLine.count > maximumMessageLength else { return oneLine }
        return String(oneLine.prefix(maximumMessageLength - 3)) + "..."
    }
}
