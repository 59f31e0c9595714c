import ServiceLifecycle
import StenoInfrastructure

/// Delivers completion webhooks when a media finishes (`NOTIFY steno_media`), and when a
/// heartbeat sees one due (a failed delivery's retry, a notice missed while listening failed).
struct NoticeDelivery: Service {
    let notifier: WebhookNotifier
    let signals: WorkerSignals

    func run() async throws {
        guard await signals.awaitPresence() else { return }
        await cancelWhenGracefulShutdown {
            repeat {
                await notifier.deliverDue()
            } while await signals.notices.wait(timeout: nil) != .cancelled
        }
    }
}
