import Logging
import ServiceLifecycle
import StenoInfrastructure
import StenoStore

/// Writes `api_keys.last_used_at` once a minute for the keys used meanwhile: one statement a
/// minute instead of one per request. Stops with the server, writing what is left first.
struct KeyUsageRecorder: Service {
    let authenticator: KeyAuthenticator
    let keys: KeyStore
    let interval: Duration
    var clock: any MonotonicClock = .continuous
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            try? await cancelWhenGracefulShutdown { try await clock.sleep(for: interval) }
            await flush()
        }
        await flush()
    }

    private func flush() async {
        let used = authenticator.takeUsedKeys()
        guard !used.isEmpty else { return }
        do {
            try await keys.markUsed(used)
        } catch {
            logger.warning("could not record when keys were last used", metadata: ["error": "\(error)"])
        }
    }
}
