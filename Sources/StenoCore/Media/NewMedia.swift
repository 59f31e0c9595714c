/// A recording to enqueue, as `steno enqueue` validated it.
public struct NewMedia: Sendable, Equatable {
    /// An absolute path on storage every worker mounts, or an http(s) URL.
    public var source: String
    public var title: String?
    public var language: String?
    public var model: String?
    public var priority: JobPriority
    public var chapters: ChapterSelection
    public var webhookURL: String?

    public init(
        source: String, title: String? = nil, language: String? = nil, model: String? = nil,
        priority: JobPriority = .low, chapters: ChapterSelection = .all, webhookURL: String? = nil
    ) {
        self.source = source
        self.title = title
        self.language = language
        self.model = model
        self.priority = priority
        self.chapters = chapters
        self.webhookURL = webhookURL
    }
}
