/// Why a voice model (the speech detector, the speaker encoder, the segmentation model) cannot
/// run: its file is missing, unreadable or not the network it expects. The description names the file and what to do, never more.
public struct VoiceModelError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// No file at the path.
        case missingModel = "missing_model"
        /// The file could not be read.
        case unreadableModel = "unreadable_model"
        /// Not a well-formed ONNX file.
        case malformedModel = "malformed_model"
        /// A well-formed ONNX file, but not the Silero VAD network this detector runs.
        case unexpectedModel = "unexpected_model"
    }

    public var code: Code
    public var message: String
    public var path: String?

    public init(_ code: Code, _ message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    public var description: String {
        let location = path.map { " (\($0))" } ?? ""
        return "voice model \(code.rawValue)\(location): \(message)"
    }
}
