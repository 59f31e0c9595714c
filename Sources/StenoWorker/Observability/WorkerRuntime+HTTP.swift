public import Hummingbird
import Logging
import ServiceLifecycle
import StenoInfrastructure
import StenoPostgres

extension WorkerRuntime {
    /// `/healthz` (the process runs), `/readyz` (the database answers) and Prometheus `/metrics`,
    /// as a service for the same service group as the runtime.
    public func makeHTTPApplication(
        host: String = "0.0.0.0", port: Int, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        router.get("/healthz") { _, _ in "ok\n" }
        router.get("/readyz") { _, _ -> Response in
            let ready = await self.databaseReachable()
            return Response(
                status: ready ? .ok : .serviceUnavailable,
                headers: [.contentType: "text/plain; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: ready ? "ready\n" : "database unreachable\n")))
        }
        router.get("/metrics") { _, _ -> Response in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: self.metrics.render(jobsInFlight: self.jobsInFlight, requestLimit: self.requests.limit))))
        }
        return Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "steno-worker"),
            onServerRunning: { channel in
                await onListening(channel.localAddress?.port ?? 0)
            },
            logger: logger)
    }
}
