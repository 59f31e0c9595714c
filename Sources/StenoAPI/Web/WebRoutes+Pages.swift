import Foundation
import HTTPTypes
import Hummingbird
import NIOPosix
import StenoCore
import StenoStore

#if canImport(Glibc)
import Glibc
import StenoInfrastructure
#endif

extension WebRoutes {
    func overviewPage(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let principal = try context.require(.read)
        let start = ContinuousClock.now
        let overview = try await store.overview(tenant: principal.tenant, includeFleet: principal.scope.allows(.admin))
        let chrome = WebChrome(
            principal: principal, session: context.webSession, section: .overview,
            notice: WebChrome.notice(for: try WebPages.query(request)["did"]), live: true)
        return try page("overview", OverviewView(overview, chrome: chrome, now: media.clock.date), timedSince: start)
    }

    func mediaListPage(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let principal = try context.require(.read)
        let start = ContinuousClock.now
        let query = try WebPages.query(request)
        // A form's empty choice ("any state") is no filter.
        let state = query["state"].flatMap { $0.isEmpty ? nil : $0 }
        let priority = query["priority"].flatMap { $0.isEmpty ? nil : $0 }
        let since = query["since"].flatMap { $0.isEmpty ? nil : $0 }
        let text = query["q"].flatMap { $0.isEmpty ? nil : $0 }
        var filter = try MediaRoutes.mediaFilter(tenant: principal.tenant, states: state, priorities: priority, since: since, text: text, now: media.clock.date)
        filter.limit = 50
        if let cursor = query["cursor"] {
            guard let before = Int64(cursor), before > 0 else { throw APIError.badRequest("cursor must come from an Older link", field: "cursor") }
            filter.beforeID = before
        }
        let media = try await store.list(filter)
        var older: String?
        if media.count == filter.limit, let last = media.last {
            var parts = ["cursor=\(last.mediaID)"]
            for (name, value) in [("state", state), ("priority", priority), ("since", since), ("q", text)] {
                if let value { parts.append("\(name)=\(WebPages.queryValue(value))") }
            }
            older = "/media?" + parts.joined(separator: "&")
        }
        let view = MediaListView(
            chrome: WebChrome(principal: principal, session: context.webSession, section: .media, live: true),
            media: media.map(MediaRow.init), hasMedia: !media.isEmpty,
            states: [.init(value: "", label: "any state", selected: state == nil)]
                + MediaState.allCases.map { .init(value: $0.rawValue, label: $0.rawValue, selected: $0.rawValue == state) },
            priorities: [.init(value: "", label: "any priority", selected: priority == nil)]
                + [JobPriority.high, .medium, .low].map { .init(value: $0.name, label: $0.name, selected: $0.name == priority) },
            since: since ?? "", text: text ?? "", filtered: state != nil || priority != nil || since != nil || text != nil, olderLink: older,
            tenant: principal.tenant)
        return try page("media-list", view, timedSince: start)
    }

    func mediaPage(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let principal = try context.require(.read)
        let start = ContinuousClock.now
        let id = try RouteParameters.mediaID(context)
        async let progress = store.progress(of: id, tenant: principal.tenant)
        async let chapters = store.chapterProgress(of: id)
        async let holds = store.holds(of: id)
        let media = try await progress
        // Read after the tenant check of `progress`, not beside it: it names no tenant.
        let attempts = try await store.unsuccessfulAttempts(of: id)
        let chrome = WebChrome(
            principal: principal, session: context.webSession, section: .media,
            notice: WebChrome.notice(for: try WebPages.query(request)["did"]), live: true)
        let view = MediaView(
            media: media, chapters: try await chapters, holds: media.state.isFinished ? [] : try await holds, attempts: attempts, chrome: chrome)
        return try page("media", view, timedSince: start)
    }

    func readerPage(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let principal = try context.require(.read)
        let id = try RouteParameters.mediaID(context)
        let start = ContinuousClock.now
        let query = try WebPages.query(request)
        let chapter = try RouteParameters.integer(query["chapter"], field: "chapter", in: 1...100_000)
        let from = try RouteParameters.integer(query["from"], field: "from", in: 0...100_000_000)
        var time: Double?
        if let text = query["t"] {
            guard let value = Double(text), value.isFinite, value >= 0 else {
                throw APIError.badRequest("t must be a time in seconds, such as 75.5", field: "t")
            }
            time = value
        }
        let transcript = try await store.transcriptPage(mediaID: id, tenant: principal.tenant, chapter: chapter, from: from, time: time)
        let audioProblem = playbackLink(transcript.source) != nil ? nil : await Self.playableFile(transcript.source).problem
        let view = ReaderView(
            transcript, time: time, audioProblem: audioProblem,
            chrome: WebChrome(principal: principal, session: context.webSession, section: .media))
        return try page("reader", view, timedSince: start)
    }

    func searchPage(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let principal = try context.require(.read)
        let start = ContinuousClock.now
        let query = try WebPages.query(request)
        let text = (query["q"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let language = query["language"].flatMap { $0.isEmpty ? nil : $0 }
        let speaker = query["speaker"].map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        let offset = try RouteParameters.integer(query["offset"], field: "offset", in: 0...1000) ?? 0
        async let languageList = store.languages(tenant: principal.tenant)
        var problem: String?
        var hits: [SearchHit] = []
        var capped = false
        let pageSize = 20
        if text.count > 200 || text.unicodeScalars.contains("\u{0}") {
            problem = "Search for at most 200 characters."
        } else if !text.isEmpty {
            (hits, capped) = try await store.search(
                text, tenant: principal.tenant, language: language, speaker: speaker, limit: pageSize + 1, offset: offset)
        }
        let languages = try await languageList
        var more: String?
        if hits.count > pageSize {
            hits.removeLast()
            more = "/search?q=\(WebPages.queryValue(text))" + (language.map { "&language=\(WebPages.queryValue($0))" } ?? "")
                + (speaker.map { "&speaker=\(WebPages.queryValue($0))" } ?? "") + "&offset=\(offset + pageSize)"
        }
        let view = SearchView(
            chrome: WebChrome(principal: principal, session: context.webSession, section: .search), query: text, speaker: speaker ?? "",
            searched: !text.isEmpty && problem == nil, hits: hits.map(SearchView.hit), hasHits: !hits.isEmpty,
            languages: [.init(value: "", label: "every language", selected: language == nil)]
                + languages.map { .init(value: $0, label: $0, selected: $0 == language) },
            hasLanguages: !languages.isEmpty, moreLink: more, problem: problem,
            capped: capped ? "More than \(AdminStore.searchCandidates.formatted()) segments match: these are the best of the first \(AdminStore.searchCandidates.formatted()). Add a word or quote a phrase to narrow it." : nil)
        return try page("search", view, status: problem == nil ? .ok : .badRequest, timedSince: start)
    }

    /// Whether the reader can play a media's source: a regular, readable file on this server.
    /// A URL source, or a file only the workers see, is told as such instead of a player.
    static func playableFile(_ source: String) async -> (path: String?, size: Int64, problem: String?) {
        if source.contains("://") {
            return (nil, 0, "The recording was fetched from a URL; this server has no copy of it to play.")
        }
        let found: (Int64, Bool)? = try? await NIOThreadPool.singleton.runIfActive {
            var info = stat()
            guard stat(source, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            return (Int64(info.st_size), access(source, R_OK) == 0)
        }
        guard let (size, readable) = found else {
            return (nil, 0, "The recording is not on this server (steno-api reads it at the path the workers were given).")
        }
        guard readable else { return (nil, 0, "steno-api may not read the recording's file.") }
        return (source, size, nil)
    }
}
