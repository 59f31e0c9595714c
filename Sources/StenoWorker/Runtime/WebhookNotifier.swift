import StenoCore
import StenoStore
import Foundation
import Logging
import StenoInfrastructure
import StenoTranscription
import Synchronization

/// Calls each finished media's webhook (`media.webhook_url`, else `STENO_WEBHOOK_URL`) once with
/// a JSON notice, retrying failed deliveries with a growing delay.
final class WebhookNotifier: Sendable {
    private let store: WorkStore
    private let defaultURL: String?
    private let logger: Logger
    /// Posts through the worker's curl engine, as uploads go.
    private let poster = JSONPoster(timeout: .seconds(10))
    /// Media whose delivery failed: attempts so far and when to try again.
    private let backoff = Mutex<[Int64: (attempts: Int, next: ContinuousClock.Instant)]>([:])

    /// Where webhooks from API clients may go.
    private let outbound: OutboundURLPolicy
    /// When a failed delivery is tried again.
    private let clock: any MonotonicClock

    init(store: WorkStore, defaultURL: String?, outbound: OutboundURLPolicy = OutboundURLPolicy(), clock: any MonotonicClock = .continuous, logger: Logger) {
        self.outbound = outbound
        self.clock = clock
        self.store = store
        self.defaultURL = defaultURL
        self.logger = logger
    }

    /// Media whose delivery failed and waits for its next try.
    var backingOff: [Int64] {
        let now = clock.now
        return backoff.withLock { $0.filter { $0.value.next > now }.map(\.key) }
    }

    /// Delivers what is due; called on `NOTIFY steno_media` and when a heartbeat sees a notice due.
    func deliverDue() async {
        let waiting = backingOff
        do {
            let results = try await store.deliverNotices(defaultURL: defaultURL, skip: waiting) { notice, url in
                await self.post(notice, to: url)
            }
            backoff.withLock { backoff in
                for (mediaID, delivered) in results {
                    if delivered {
                        backoff[mediaID] = nil
                    } else {
                        let attempts = (backoff[mediaID]?.attempts ?? 0) + 1
                        let delay = Duration.seconds(min(300, 1 << min(attempts - 1, 9)))
                        backoff[mediaID] = (attempts, clock.now + delay)
                    }
                }
            }
        } catch {
            logger.warning("could not deliver completion notices", metadata: ["error": "\(error)"])
        }
    }

    private func post(_ notice: WorkStore.PendingNotice, to url: String) async -> Bool {
        guard let target = URL(string: url), let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            logger.error("the webhook URL is not http(s); the notice is not sent", metadata: ["media.id": "\(notice.mediaID)"])
            return false
        }
        let body = (try? JSONEncoder().encode(notice)).map { [UInt8]($0) } ?? []
        let connectionGuard = notice.webhookFromClient ? ConnectionGuard(policy: outbound) : nil
        switch await poster.post(body, to: url, connectionGuard: connectionGuard) {
        case .answered(let status) where (200..<300).contains(status):
            logger.info("webhook notified", metadata: ["media.id": "\(notice.mediaID)", "state": "\(notice.state)"])
            return true
        case .answered(let status):
            logger.warning("webhook answered with an error; will retry", metadata: ["media.id": "\(notice.mediaID)", "status": "\(status)"])
            return false
        case .failed(let reason):
            // The URL may hold a token; log only the host.
            logger.warning("webhook unreachable; will retry", metadata: [
                "media.id": "\(notice.mediaID)", "host": "\(target.host ?? "?")", "error": "\(reason)",
            ])
            return false
        }
    }
}
