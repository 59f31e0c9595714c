import Foundation
import StenoInfrastructure

/// The settings a media is enqueued with, as a person typed them (CLI flags or API fields),
/// checked in one place so that `steno enqueue` and `POST /v1/media` accept and refuse the
/// same values with the same words.
public struct MediaOptions: Sendable, Equatable {
    public var title: String?
    public var language: String?
    public var model: String?
    public var prompt: String?
    public var priority: String?
    public var chapters: String?
    public var webhook: String?
    /// `auto` (the default), `off`, a number of speakers, or a range such as `2-4`.
    public var speakers: String?
    /// `true` translates the recording into English (`false` or nil: transcribe it).
    public var translate: String?

    public init(
        title: String? = nil, language: String? = nil, model: String? = nil, prompt: String? = nil,
        priority: String? = nil, chapters: String? = nil, webhook: String? = nil, speakers: String? = nil, translate: String? = nil
    ) {
        self.translate = translate
        self.speakers = speakers
        self.title = title
        self.language = language
        self.model = model
        self.prompt = prompt
        self.priority = priority
        self.chapters = chapters
        self.webhook = webhook
    }

    /// A setting that cannot be used: `field` is its name (`language`), `problem` completes a
    /// sentence that starts with it ("must be an ISO 639 code ...").
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var field: String
        public var problem: String
        public var hint: String?

        public var description: String { "\(field) \(problem)" }
    }

    /// The checked settings for `source`.
    public func validated(source: String, tenant: String = NewMedia.defaultTenant, idempotencyKey: String? = nil) throws(Problem) -> NewMedia {
        for (field, value) in [("title", title), ("language", language), ("model", model), ("prompt", prompt), ("priority", priority),
                               ("chapters", chapters), ("webhook", webhook)] {
            // PostgreSQL's text cannot hold NUL, and no setting needs one.
            if let value, value.unicodeScalars.contains("\u{0}") {
                throw Problem(field: field, problem: "must not contain NUL characters")
            }
        }
        guard NewMedia.isValidTenant(tenant) else {
            throw Problem(field: "tenant", problem: NewMedia.tenantRule + ", not \(tenant)")
        }
        let priorityName = priority ?? "low"
        guard let priority = JobPriority(name: priorityName) else {
            throw Problem(field: "priority", problem: "must be high, medium or low, not \(priorityName)")
        }
        let selection: ChapterSelection
        do {
            selection = try ChapterSelection(parsing: chapters ?? "all")
        } catch {
            throw Problem(field: "chapters", problem: "is not a selection: \(error)")
        }
        var givenLanguage: String?
        var multilingual = false
        switch language {
        case nil, "auto": break
        case "multi": multilingual = true
        default:
            guard let language, language.wholeMatch(of: /[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?/) != nil else {
                throw Problem(
                    field: "language",
                    problem: "must be auto, multi or an ISO 639 code such as en, de or pt-BR, not \(language ?? "")")
            }
            givenLanguage = language
        }
        if let model, model.allSatisfy(\.isWhitespace) {
            throw Problem(field: "model", problem: "must not be empty")
        }
        if let title, title.count > 500 {
            throw Problem(field: "title", problem: "has \(title.count) characters; the longest is 500")
        }
        var trimmedPrompt: String?
        if let prompt {
            let trimmed = prompt.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty {
                throw Problem(field: "prompt", problem: "must not be empty")
            }
            if prompt.count > NewMedia.longestPrompt {
                throw Problem(
                    field: "prompt", problem: "has \(prompt.count) characters; the longest is \(NewMedia.longestPrompt)",
                    hint: "whisper reads only the last 224 tokens of a prompt: keep the names and terms that matter")
            }
            if prompt.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t" }) {
                throw Problem(field: "prompt", problem: "must not contain control characters")
            }
            trimmedPrompt = trimmed
        }
        if let webhook, WebURL(webhook) == nil {
            throw Problem(field: "webhook", problem: "must be an http(s) URL, not \(SecretRedactor.redactURLCredentials(in: webhook))")
        }
        var media = NewMedia(
            source: source, title: title, language: givenLanguage, model: model, priority: priority, chapters: selection,
            webhookURL: webhook, prompt: trimmedPrompt, tenant: tenant, idempotencyKey: idempotencyKey)
        media.multilingual = multilingual
        switch translate {
        case nil, "false": break
        case "true":
            guard !multilingual else {
                throw Problem(field: "translate", problem: "does not go with language multi: a translation is English whatever is spoken; leave language out")
            }
            media.translate = true
        default:
            throw Problem(field: "translate", problem: "must be true or false, not \(translate ?? "")")
        }
        if let speakers {
            if speakers.trimmingCharacters(in: .whitespaces).lowercased() == "off" {
                media.speakerDetection = false
            } else {
                do {
                    media.speakers = try SpeakerCount(parsing: speakers)
                } catch {
                    throw Problem(field: "speakers", problem: "must be auto, off, a number from 1 to 64, or a range such as 2-4 (got \(speakers))")
                }
            }
        }
        return media
    }
}

/// An absolute http(s) URL with a host, split as the outbound checks need it.
public struct WebURL: Sendable, Equatable {
    public var scheme: String
    public var host: String
    public var port: Int

    public init?(_ text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = text[text.index(after: colon)...]
        guard rest.hasPrefix("//") else { return nil }
        let authorityEnd = rest.dropFirst(2).firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var authority = rest[rest.index(rest.startIndex, offsetBy: 2)..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = Substring(authority)
        var port = scheme == "https" ? 443 : 80
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            host = host[host.startIndex...close]
            if after.hasPrefix(":") {
                guard let number = Int(after.dropFirst()), (1...65535).contains(number) else { return nil }
                port = number
            } else if !after.isEmpty {
                return nil
            }
        } else if let portColon = host.lastIndex(of: ":") {
            guard let number = Int(host[host.index(after: portColon)...]), (1...65535).contains(number) else { return nil }
            port = number
            host = host[..<portColon]
        }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace }) else { return nil }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " }) else { return nil }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port
    }

    /// The host as the resolver takes it: without the brackets of an IPv6 literal.
    public var resolvableHost: String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }
}
