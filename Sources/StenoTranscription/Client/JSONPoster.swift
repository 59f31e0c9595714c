import StenoCore
public import StenoInfrastructure

/// Posts a JSON body over the shared curl engine, the one HTTP stack the worker has: the
/// completion webhooks use it, with the same limits to protocols (http and https only),
/// redirects (not followed) and response size as uploads to a backend.
public struct JSONPoster: Sendable {
    /// How a post ended.
    public enum Outcome: Sendable, Equatable {
        /// The server answered with this status (any status: the caller decides what is success).
        case answered(status: Int)
        /// No answer: refused, unreachable, timed out, cancelled. The reason is curl's own words
        /// about the host, never the URL, which may carry a token.
        case failed(reason: String)
    }

    /// The longest a post may take, connection included.
    public var timeout: Duration

    public init(timeout: Duration = .seconds(10)) {
        self.timeout = timeout
    }

    /// Posts `body`; with a `connectionGuard`, only to addresses its policy allows, checked as
    /// curl connects (a URL from an API client).
    public func post(
        _ body: [UInt8], to url: String, connectionGuard: ConnectionGuard? = nil, cancellation: CancellationSignal = CancellationSignal()
    ) async -> Outcome {
        guard HTTPRequest.isHTTP(url) else {
            return .failed(reason: "the URL is not http(s)")
        }
        var request = HTTPRequest(
            url: url, headerLines: ["Content-Type: application/json", "Expect:"], body: .bytes(body),
            connectTimeout: min(timeout, .seconds(10)), totalTimeout: timeout, stallTimeout: timeout)
        request.connectionGuard = connectionGuard
        let transfer: CurlTransfer
        do {
            transfer = try CurlTransfer(request: request, cancellation: cancellation)
        } catch {
            return .failed(reason: "could not set up the request: \(error)")
        }
        let outcome = await CurlTransferEngine.shared.perform(transfer)
        if case .failure = outcome, let refusal = connectionGuard?.lastRefusal {
            return .failed(reason: "refused: \(refusal)")
        }
        switch outcome {
        case .success(let response):
            return .answered(status: response.status)
        case .failure(.cancelled):
            return .failed(reason: "cancelled")
        case .failure(.stalled):
            return .failed(reason: "the request stalled")
        case .failure(.responseTooLarge(let limit)):
            return .failed(reason: "the answer was larger than \(limit) bytes")
        case .failure(.curl(_, let message)):
            return .failed(reason: message)
        case .failure(.setup(let error)):
            return .failed(reason: "could not set up the request: \(error)")
        }
    }
}
