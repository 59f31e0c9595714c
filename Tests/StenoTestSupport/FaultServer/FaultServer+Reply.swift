extension FaultServer {
    /// How the server treats one request.
    public enum Reply: Sendable {
        /// Reads the request and answers; `delay` holds the answer back.
        case respond(status: Int, headers: [(String, String)], body: [UInt8], delay: Duration)
        /// Reads the request and answers with headers and a body built from it (to echo it back),
        /// after `delay` (a slow backend).
        case echo(status: Int, delay: Duration = .zero, answer: @Sendable (RecordedRequest) -> (headers: [(String, String)], body: String))
        /// Reads the request and never answers, until the client gives up.
        case hang
        /// Reads the head and `afterBytes` of the body, then stops reading.
        case stallUpload(afterBytes: Int)
        /// Reads the request, then resets the connection (RST).
        case reset
        /// Declares `declaredLength` bytes of body, sends `body`, and closes.
        case truncated(status: Int, body: [UInt8], declaredLength: Int)
        /// Answers with bytes that are not HTTP.
        case garbage

        /// A JSON answer.
        public static func json(_ status: Int, _ body: String, headers: [(String, String)] = [], delay: Duration = .zero) -> Reply {
            .respond(status: status, headers: headers, body: Array(body.utf8), delay: delay)
        }

        /// An OpenAI-shaped error answer.
        public static func openAIError(
            _ status: Int, message: String, type: String, code: String? = nil, headers: [(String, String)] = []
        ) -> Reply {
            let codeJSON = code.map { "\"\($0)\"" } ?? "null"
            return .json(
                status, #"{"error":{"message":"\#(message)","type":"\#(type)","param":null,"code":\#(codeJSON)}}"#,
                headers: headers)
        }
    }

    /// The smallest successful `json` transcription.
    public static let minimalTranscription = #"{"text":"Hello from the fault server."}"#
}
