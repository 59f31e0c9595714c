/// One encoded chunk to transcribe, with the hints that make the result better.
public struct TranscriptionRequest: Sendable {
    public var audio: UploadAudio
    public var format: AudioFormat
    /// The chunk's length; gives the whole-chunk segment its end when the backend returns no
    /// timestamps, and the cost when the backend reports no usage.
    public var duration: Duration?
    /// ISO-639-1, such as `en`; nil lets the backend detect it.
    public var language: String?
    /// Names and vocabulary to expect, or text that came just before this chunk (whisper uses
    /// its last 224 tokens), to keep spelling and style consistent across chunks.
    public var prompt: String?
    /// The model for this request, in place of the backend's configured one (a media's own
    /// `--model`); a fallback backend always uses its own.
    public var model: String?
    /// 0...1; nil leaves the backend's default.
    public var temperature: Double?
    /// Transcribe (the default), or translate into English through the backend's translations endpoint.
    public var task: TranscriptionTask = .transcribe
    /// Runs before each HTTP request of the attempt (retries included, after the rate limit
    /// gate); an error it throws ends the attempt without sending. The worker withholds uploads
    /// on a lease it may have lost (`LeaseWatch`).
    public var beforeEachRequest: (@Sendable () async throws(TranscriptionError) -> Void)?

    public init(
        audio: [UInt8], format: AudioFormat, duration: Duration? = nil, language: String? = nil,
        prompt: String? = nil, model: String? = nil, temperature: Double? = nil
    ) {
        self.init(upload: UploadAudio(audio), format: format, duration: duration, language: language, prompt: prompt, model: model, temperature: temperature)
    }

    /// A request whose audio may be dropped once sent and remade for a retry (`UploadAudio`).
    public init(
        upload: UploadAudio, format: AudioFormat, duration: Duration? = nil, language: String? = nil,
        prompt: String? = nil, model: String? = nil, temperature: Double? = nil
    ) {
        self.model = model
        self.audio = upload
        self.format = format
        self.duration = duration
        self.language = language
        self.prompt = prompt
        self.temperature = temperature
    }
}
