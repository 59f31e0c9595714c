/// Why an admin operation could not be done, with a stable code that the CLI maps to an exit
/// code. `description` is safe to log: it names ids and paths, never credentials.
public struct AdminError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public var description: String { rawValue }

        /// No media (or chapter) with that id or number.
        public static let notFound = Code(rawValue: "not_found")
        /// A source, option or selection that cannot be used.
        public static let invalidInput = Code(rawValue: "invalid_input")
        /// The source is already queued or being transcribed.
        public static let duplicateSource = Code(rawValue: "duplicate_source")
        /// The database lacks migrations this Steno needs.
        public static let schemaOutdated = Code(rawValue: "schema_outdated")
        /// The media is in a state that does not allow the operation (already finished, say).
        public static let wrongState = Code(rawValue: "wrong_state")
        /// Nothing to export yet.
        public static let noTranscript = Code(rawValue: "no_transcript")
        /// A chapter was merged again while its transcript was read: exporting again reads one whole.
        public static let transcriptChanged = Code(rawValue: "transcript_changed")
    }

    public var code: Code
    public var message: String
    /// What to do about it.
    public var hint: String?

    public init(_ code: Code, _ message: String, hint: String? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
    }

    public var description: String {
        hint.map { "\(message) (\($0))" } ?? message
    }
}
