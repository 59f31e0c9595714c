/// A recognition error with a stable code; `description` is safe to log.
public struct SpeechError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public var description: String { rawValue }

        /// The acoustic model, language model or dictionary could not be loaded.
        public static let modelUnavailable = Code(rawValue: "model_unavailable")
        /// The model is still loading.
        public static let loading = Code(rawValue: "loading")
        /// Every recogniser is busy and the waiting line is full.
        public static let overloaded = Code(rawValue: "overloaded")
        /// pocketsphinx failed on this audio.
        public static let recognitionFailed = Code(rawValue: "recognition_failed")
        /// The pool was shut down.
        public static let shutDown = Code(rawValue: "shut_down")
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "speech \(code): \(message)" }
}
