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
    /// Names and vocabulary sent with every chunk as the backend's `prompt`.
    public var prompt: String?

    /// The longest prompt: whisper reads only its last 224 tokens, about 1,000 characters of English.
    public static let longestPrompt = 1000

    public init(
        source: String, title: String? = nil, language: String? = nil, model: String? = nil,
        priority: JobPriority = .low, chapters: ChapterSelection = .all, webhookURL: String? = nil, prompt: String? = nil
    ) {
        self.prompt = prompt
        self.source = source
        self.title = title
        self.language = language
        self.model = model
        self.priority = priority
        self.chapters = chapters
        self.webhookURL = webhookURL
    }
}
