public import StenoInfrastructure

/// One plain HTTP request over the shared curl engine, for the clients of other services than a
/// transcription backend (the object store): any method, a body of bytes, the answer in memory.
/// http and https only, no redirects followed, the answer at most 32 MiB.
public struct HTTPCall: Sendable {
    public enum Method: String, Sendable {
        case get = "GET", put = "PUT", post = "POST", delete = "DELETE", head = "HEAD"
    }

    /// An answer, whatever its status.
    public struct Answer: Sendable {
        public var status: Int
        /// Header names in lower case.
        public var headers: [String: String]
        public var body: [UInt8]

        public func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    /// Why no answer came. The reason is curl's own words about the host, never the URL, which
    /// may carry a signature.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case cancelled
        case stalled
        case failed(String)

        public var description: String {
            switch self {
            case .cancelled: "cancelled"
            case .stalled: "the transfer stalled"
            case .failed(let reason): reason
            }
        }
    }

    public var method: Method
    public var url: String
    /// Complete header lines, `Name: value`. They may carry secrets: never log them.
    public var headerLines: [String]
    public var body: [UInt8]?
    public var connectTimeout: Duration
    public var timeout: Duration
    /// A transfer that moves no byte for this long is aborted.
    public var stallTimeout: Duration

    public init(
        _ method: Method, url: String, headerLines: [String] = [], body: [UInt8]? = nil, connectTimeout: Duration = .seconds(10),
        timeout: Duration = .seconds(300), stallTimeout: Duration = .seconds(60)
    ) {
        self.method = method
        self.url = url
        self.headerLines = headerLines
        self.body = body
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.stallTimeout = stallTimeout
    }

    public func send(cancellation: CancellationSignal = CancellationSignal()) async -> Result<Answer, Failure> {
        guard HTTPRequest.isHTTP(url) else { return .failure(.failed("the URL is not http(s)")) }
        // No `Expect: 100-continue`: a part upload would wait on it a round trip, or a second.
        var request = HTTPRequest(
            url: url, headerLines: headerLines + ["Expect:"], body: body.map { .bytes($0) } ?? .none, connectTimeout: connectTimeout,
            totalTimeout: timeout, stallTimeout: stallTimeout)
        request.method = method == .get || (method == .post && body != nil) ? nil : method.rawValue
        if method == .post, body == nil { request.body = .bytes([]) }
        let transfer: CurlTransfer
        do {
            transfer = try CurlTransfer(request: request, cancellation: cancellation)
        } catch {
            return .failure(.failed("could not set up the request: \(error)"))
        }
        switch await CurlTransferEngine.shared.perform(transfer) {
        case .success(let response):
            return .success(Answer(status: response.status, headers: response.headers, body: response.body))
        case .failure(.cancelled):
            return .failure(.cancelled)
        case .failure(.stalled):
            return .failure(.stalled)
        case .failure(.responseTooLarge(let limit)):
            return .failure(.failed("the answer was larger than \(limit) bytes"))
        case .failure(.curl(_, let message)):
            return .failure(.failed(message))
        case .failure(.setup(let error)):
            return .failure(.failed("could not set up the request: \(error)"))
        }
    }
}
