extension FailureClass {
    /// What the class means for an operator, shown next to the stored message by `steno status`.
    public var explanation: String {
        switch self {
        case .transient: "the transcription backend or network was unavailable for a while"
        case .permanent: "the transcription backend rejected the request"
        case .tooLarge: "a chunk was too large for the backend"
        case .configuration: "the backend refused the credentials or the quota is used up; check the API key and plan"
        case .media: "the recording cannot be read: unreadable, corrupt, no audio stream or an unsupported codec"
        case .cancelled: "cancelled by an operator or a shutdown"
        case .lostLease: "the worker running it stopped (crashed or froze) and the job was taken back"
        case .internal: "an unexpected error in Steno itself"
        }
    }

    /// What an operator can do about a failure of this class.
    public var remedy: String {
        switch self {
        case .transient: "Steno retries by itself; if it goes on, check that the backend is up"
        case .permanent: "fix what the backend objects to, then `steno retry`"
        case .tooLarge: "lower STENO_CHUNK_SECONDS or raise the backend's upload limit, then `steno retry`"
        case .configuration: "check the API key, model and plan, then `steno retry`"
        case .media: "repair or replace the recording and `steno retry`, or enqueue it again with other --chapters"
        case .cancelled: "`steno retry` resumes it"
        case .lostLease: "`steno retry` resumes it"
        case .internal: "report it with the worker's log; `steno retry` may pass"
        }
    }

    /// The explanation of a stored class name; unknown names are shown as they are.
    public static func explain(_ storedName: String) -> String {
        FailureClass(rawValue: storedName)?.explanation ?? storedName
    }
}
