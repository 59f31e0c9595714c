/// A recording to enqueue, as `steno enqueue` validated it.
public struct NewMedia: Sendable, Equatable {
    /// An absolute path on storage every worker mounts, or an http(s) URL.
    public var source: String
    public var title: String?
    /// The spoken language the user gave (an ISO 639 code); nil lets the fleet detect and
    /// settle it (`LanguageVote`), or, with `multilingual`, each chunk keep its own.
    public var language: String?
    /// `--language multi`: the recording speaks several languages; none is settled for it.
    public var multilingual = false
    /// `--translate`: the transcript is English, translated by the backend from the language spoken.
    public var translate = false
    public var model: String?
    public var priority: JobPriority
    public var chapters: ChapterSelection
    public var webhookURL: String?
    /// Names and vocabulary sent with every chunk as the backend's `prompt`.
    public var prompt: String?
    /// The tenant the media belongs to: an API key's, else `default`.
    public var tenant: String
    /// An API client's `Idempotency-Key`: a second media with the same key and tenant is not added.
    public var idempotencyKey: String?
    /// The webhook came from an API client: workers post to public addresses only.
    public var webhookFromClient = false
    /// Whether the media's speakers are told apart (`--speakers off` turns it off).
    public var speakerDetection = true
    /// How many speakers it has, when the user knows (`--speakers N` or `MIN-MAX`).
    public var speakers = SpeakerCount.automatic
    /// The recording as the object store held it when it was enqueued, for a source in the
    /// store: every read checks the object against it.
    public var sourceObject: SourceObject?

    /// The tenant of media enqueued without one (by the CLI).
    public static let defaultTenant = "default"

    /// Whether `name` can name a tenant (the `media.tenant` CHECK of migration 0013).
    public static func isValidTenant(_ name: String) -> Bool {
        name.wholeMatch(of: /[a-z0-9][a-z0-9_.\-]{0,62}/) != nil
    }

    /// The rule `isValidTenant` checks, in words.
    public static let tenantRule = "must be 1 to 63 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit"

    /// The longest prompt: whisper reads only its last 224 tokens, about 1,000 characters of English.
    public static let longestPrompt = 1000

    public init(
        source: String, title: String? = nil, language: String? = nil, model: String? = nil,
        priority: JobPriority = .low, chapters: ChapterSelection = .all, webhookURL: String? = nil, prompt: String? = nil,
        tenant: String = NewMedia.defaultTenant, idempotencyKey: String? = nil
    ) {
        self.tenant = tenant
        self.idempotencyKey = idempotencyKey
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
