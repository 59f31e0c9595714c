/// Why a transfer ended without an HTTP response.
enum TransportFailure: Error, Sendable {
    /// The cancel signal or the calling task stopped it.
    case cancelled
    /// The upload sent no byte for the stall timeout.
    case stalled(Duration)
    /// The response body was larger than any transcription can be.
    case responseTooLarge(limit: Int)
    /// curl ended the transfer with this code; `message` is curl's own explanation.
    case curl(code: Int, message: String)
    /// Setting the transfer up failed: a fault in Steno or its environment.
    case setup(CurlCallError)
}
