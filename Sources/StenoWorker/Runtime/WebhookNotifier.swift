import Foundation
import Logging
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Calls each finished media's webhook (`media.webhook_url`, else `STENO_WEBHOOK_URL`) once with
/// a JSON notice, retrying failed deliveries with a growing delay.
final class WebhookNotifier: Sendable {
    private let store: WorkStore
    private let defaultURL: String?
    private let logger: Logger
    private let session: URLSession
    /// Media whose delivery failed: attempts so far and when to try again.
    private let backoff = Mutex<[Int64: (attempts: Int, next: ContinuousClock.Instant)]>([:])

    init(store: WorkStore, defaultURL: String?, logger: Logger) {
        self.store = store
        self.defaultURL = defaultURL
        self.logger = logger
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        self.session = URLSession(configuration: configuration)
    }

    /// Media whose delivery failed and waits for its next try.
    var backingOff: [Int64] {
        let now = ContinuousClock.now
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
                        backoff[mediaID] = (attempts, ContinuousClock.now + delay)
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
        var request = URLRequest(url: target)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try? JSONEncoder().encode(notice)
        do {
            let (_, response) = try await session.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            guard (200..<300).contains(status) else {
                logger.warning("webhook answered with an error; will retry", metadata: ["media.id": "\(notice.mediaID)", "status": "\(status)"])
                return false
            }
            logger.info("webhook notified", metadata: ["media.id": "\(notice.mediaID)", "state": "\(notice.state)"])
            return true
        } catch {
            // The URL may hold a token; log only the host.
            logger.warning("webhook unreachable; will retry", metadata: [
                "media.id": "\(notice.mediaID)", "host": "\(target.host ?? "?")", "error": "\(error.localizedDescription)",
            ])
            return false
        }
    }
}
