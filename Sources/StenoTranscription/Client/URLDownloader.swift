import StenoCore
public import StenoInfrastructure

/// Fetches a recording an API client named by URL into a file, over the shared curl engine:
/// http and https only, at most five redirects, every connection checked by the guard, the
/// body streamed to disk up to a size limit. Nothing is left behind when it fails.
public struct URLDownloader: Sendable {
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// A connection went to an address the policy refuses.
        case refused(OutboundURLPolicy.Refusal)
        /// The recording is larger than the limit.
        case tooLarge(limit: Int64)
        /// The server answered with an error status.
        case status(Int)
        /// No answer: unreachable, timed out, too many redirects. curl's words, never the URL.
        case failed(String)

        public var description: String {
            switch self {
            case let .refused(refusal): "\(refusal)"
            case let .tooLarge(limit): "the recording is larger than \(limit >> 20) MiB"
            case let .status(code): "the server answered HTTP \(code)"
            case let .failed(reason): reason
            }
        }
    }

    public var policy: OutboundURLPolicy
    public var maximumBytes: Int64
    /// The longest the whole download may take, and the longest it may go without a byte.
    public var timeout: Duration
    public var stallTimeout: Duration

    public init(policy: OutboundURLPolicy, maximumBytes: Int64, timeout: Duration = .seconds(3600), stallTimeout: Duration = .seconds(60)) {
        self.policy = policy
        self.maximumBytes = maximumBytes
        self.timeout = timeout
        self.stallTimeout = stallTimeout
    }

    /// Downloads `url` to `path` (a new file) and returns the bytes written.
    public func download(_ url: String, to path: String, cancellation: CancellationSignal = CancellationSignal()) async -> Result<Int64, Failure> {
        guard HTTPRequest.isHTTP(url) else { return .failure(.failed("the URL is not http(s)")) }
        let file = ResponseFile(path: path, maximumBytes: maximumBytes)
        let connectionGuard = ConnectionGuard(policy: policy)
        var request = HTTPRequest(
            url: url, headerLines: ["Accept: audio/*, video/*, */*;q=0.5"], body: .none, connectTimeout: .seconds(15),
            totalTimeout: timeout, stallTimeout: stallTimeout)
        request.followRedirects = 5
        request.connectionGuard = connectionGuard
        request.bodyFile = file
        let transfer: CurlTransfer
        do {
            transfer = try CurlTransfer(request: request, cancellation: cancellation)
        } catch {
            return .failure(.failed("could not set up the request: \(error)"))
        }
        let outcome = await CurlTransferEngine.shared.perform(transfer)
        let result: Result<Int64, Failure>
        switch outcome {
        case .success(let response) where (200..<300).contains(response.status):
            if file.failure != 0 {
                result = .failure(.failed("could not write the download (errno \(file.failure))"))
            } else if file.bytesWritten == 0 {
                result = .failure(.failed("the server sent an empty body"))
            } else {
                result = .success(file.bytesWritten)
            }
        case .success(let response):
            result = .failure(.status(response.status))
        case .failure(_) where file.overflowed:
            result = .failure(.tooLarge(limit: maximumBytes))
        case .failure(_) where connectionGuard.lastRefusal != nil:
            result = .failure(.refused(connectionGuard.lastRefusal!))
        case .failure(.responseTooLarge):
            result = .failure(.tooLarge(limit: maximumBytes))
        case .failure(.cancelled):
            result = .failure(.failed("cancelled"))
        case .failure(.stalled):
            result = .failure(.failed("the download stalled"))
        case .failure(.curl(_, let message)):
            result = .failure(.failed(message))
        case .failure(.setup(let error)):
            result = .failure(.failed("could not set up the request: \(error)"))
        }
        file.finish(keep: (try? result.get()) != nil)
        return result
    }
}
