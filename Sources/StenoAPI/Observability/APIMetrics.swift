import CoreMetrics
import Hummingbird
import Prometheus
import Synchronization

/// The API server's metrics, through swift-metrics into a Prometheus registry of its own (as
/// the worker's): requests by route and status with their latency, refusals by reason, upload
/// bytes, the event-stream clients connected, and the left-over uploads swept.
public final class APIMetrics: Sendable {
    static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10]

    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let uploadBytes: CoreMetrics.Counter
    private let sweptUploads: CoreMetrics.Counter
    private let sweptUploadBytes: CoreMetrics.Counter
    private let eventClients: CoreMetrics.Gauge
    /// The handles of each route's series, made once: looking one up in the registry on every
    /// request cost more than the rest of the middleware.
    private let requestSeries = Mutex<[String: (CoreMetrics.Counter, CoreMetrics.Timer)]>([:])

    public init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["steno_api_request_duration_seconds"] = Self.latencyBuckets.map {
            .nanoseconds(Int64($0 * 1_000_000_000))
        }
        self.factory = factory
        uploadBytes = CoreMetrics.Counter(label: "steno_api_upload_bytes_total", factory: factory)
        eventClients = CoreMetrics.Gauge(label: "steno_api_event_clients", factory: factory)
        sweptUploads = CoreMetrics.Counter(label: "steno_api_uploads_swept_total", factory: factory)
        sweptUploadBytes = CoreMetrics.Counter(label: "steno_api_uploads_swept_bytes_total", factory: factory)
    }

    func recordRequest(method: String, route: String, status: Int, duration: Duration) {
        let key = "\(method) \(route) \(status)"
        let (counter, timer) = requestSeries.withLock { series in
            if let handles = series[key] { return handles }
            let handles = (
                CoreMetrics.Counter(
                    label: "steno_api_requests_total", dimensions: [("method", method), ("route", route), ("status", String(status))],
                    factory: factory),
                CoreMetrics.Timer(label: "steno_api_request_duration_seconds", dimensions: [("route", route)], factory: factory)
            )
            series[key] = handles
            return handles
        }
        counter.increment()
        let (seconds, attoseconds) = duration.components
        timer.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    func recordRefusal(_ reason: String) {
        CoreMetrics.Counter(label: "steno_api_refusals_total", dimensions: [("reason", reason)], factory: factory).increment()
    }

    func recordUpload(bytes: Int) {
        uploadBytes.increment(by: bytes)
    }

    func recordSweptUploads(files: Int, bytes: Int64) {
        sweptUploads.increment(by: files)
        sweptUploadBytes.increment(by: Int(bytes))
    }

    func setEventClients(_ count: Int) {
        eventClients.record(count)
    }

    /// The Prometheus text exposition format.
    public func render() -> String {
        registry.emitToString()
    }
}

/// Counts every answer, errors included, by the route's pattern (never the path itself, so
/// media ids do not each make a series).
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let metrics: APIMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let method = request.method.rawValue
        do {
            let response = try await next(request, context)
            metrics.recordRequest(method: method, route: context.endpointPath ?? "unmatched", status: response.status.code, duration: ContinuousClock.now - start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.recordRequest(method: method, route: context.endpointPath ?? "unmatched", status: status, duration: ContinuousClock.now - start)
            throw error
        }
    }
}
