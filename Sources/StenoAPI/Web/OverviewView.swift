import Foundation
import StenoCore
import StenoInfrastructure

/// The overview page's values, formatted for the template.
struct OverviewView: Sendable {
    struct StateCount: Sendable {
        var state: String
        var label: String
        var media: Int
        var link: String
    }

    struct PriorityRow: Sendable {
        var priority: String
        var queued: Int
        var working: Int
        var failed: Int
    }

    struct Failure: Sendable {
        var errorClass: String
        var explanation: String
        var remedy: String?
        var failedMedia: Int
        var retryingMedia: Int
        var lastMessage: String?
        var retryLink: String?
        var cancelLink: String?
        var newestLink: String?
    }

    struct QueueRow: Sendable {
        var kind: String
        var state: String
        var jobs: Int
        var ready: Int
        var delayed: Int
    }

    struct Worker: Sendable {
        var id: String
        var host: String
        var status: String
        var live: Bool
        var heartbeat: String
        var jobs: Int
        var message: String?
    }

    struct Backend: Sendable {
        var name: String
        var health: String
        var healthLabel: String
        var outage: String?
        var window: String
        var rateLimit: String
        var errors: String
        var paid: String
        var cost: String
    }

    struct Fleet: Sendable {
        var queue: [QueueRow]
        var hasQueue: Bool
        var oldestReady: String
        var eta: String
        var speed: String
        var paidMinutes: String
        var cost: String
        var costLastHour: String
        var costPerAudioHour: String
        var workers: [Worker]
        var hasWorkers: Bool
        var liveWorkers: Int
        var backends: [Backend]
        var hasBackends: Bool
    }

    var chrome: WebChrome
    var tenant: String
    var states: [StateCount]
    var priorities: [PriorityRow]
    var remaining: String
    var oldestWaiting: String
    var tenantETA: String
    var failures: [Failure]
    var hasFailures: Bool
    var fleet: Fleet?
    var generatedAt: String

    init(_ overview: FleetOverview, chrome: WebChrome, now: Date) {
        self.chrome = chrome
        tenant = overview.tenant
        states = MediaState.allCases.map { state in
            StateCount(state: state.rawValue, label: state.rawValue, media: overview.media(in: state), link: "/media?state=\(state.rawValue)")
        }
        priorities = [JobPriority.high, .medium, .low].map { priority in
            PriorityRow(
                priority: priority.name, queued: overview.media(in: .queued, priority: priority),
                working: overview.media(in: .probing, priority: priority) + overview.media(in: .transcribing, priority: priority),
                failed: overview.media(in: .failed, priority: priority))
        }
        remaining = HumanFormat.duration(overview.remainingAudioSeconds)
        oldestWaiting = overview.oldestWaitingSeconds.map { HumanFormat.duration($0) } ?? "-"
        if let fleet = overview.fleet {
            tenantETA = fleet.estimate.with(remainingAudioSeconds: overview.remainingAudioSeconds).description
        } else {
            tenantETA = overview.remainingAudioSeconds > 0 ? "the fleet's pace is shown to admin keys" : "nothing waits"
        }
        let canAct = chrome.canAct
        failures = overview.failures.map { group in
            let name = WebPages.queryValue(group.errorClass)
            return Failure(
                errorClass: group.errorClass, explanation: group.explanation, remedy: group.remedy.map(WebPages.hint), failedMedia: group.failedMedia,
                retryingMedia: group.retryingMedia, lastMessage: group.lastMessage.map { SecretRedactor().redact($0) },
                retryLink: canAct && group.failedMedia > 0 ? "/confirm?action=retry-failed&class=\(name)" : nil,
                cancelLink: canAct && group.retryingMedia > 0 ? "/confirm?action=cancel-retrying&class=\(name)" : nil,
                newestLink: group.newestMediaID.map { "/media/\($0)" })
        }
        hasFailures = !failures.isEmpty
        fleet = overview.fleet.map(Self.fleet)
        generatedAt = WebPages.date(now)
    }

    /// "12.5× real time (1:02:30 of audio in 5:00)".
    static func pace(_ estimate: BacklogEstimate) -> String {
        guard estimate.audioSecondsDone > 0 else { return "nothing transcribed in the last hour" }
        return String(format: "%.1f× real time", estimate.speed)
            + " (\(HumanFormat.duration(estimate.audioSecondsDone)) of audio in \(HumanFormat.duration(estimate.windowSeconds)))"
    }

    private static func fleet(_ fleet: FleetOverview.Fleet) -> Fleet {
        let queue = fleet.queue.map { QueueRow(kind: $0.kind.rawValue, state: $0.state.rawValue, jobs: $0.jobs, ready: $0.ready, delayed: $0.delayed) }
        let workers = fleet.workers.filter { $0.status != .stopped || $0.heartbeatAgeSeconds < 3600 }.map { worker in
            let age = worker.heartbeatAgeSeconds
            return Worker(
                id: worker.id, host: "\(worker.hostname) (pid \(worker.pid))", status: worker.status.rawValue,
                live: worker.status != .stopped && age < 60, heartbeat: HumanFormat.age(seconds: age),
                jobs: worker.runningJobs, message: worker.statusMessage)
        }
        let backends = fleet.backends.map { backend in
            let outage = backend.outage.map { outage in
                "down since \(WebPages.date(outage.since)): \(outage.reason); \(outage.failures) failure\(outage.failures == 1 ? "" : "s"), next probe \(WebPages.date(outage.probeAt))"
            }
            let window = backend.requestLimit.map { String(format: "%.1f allowed, %d in flight", $0, backend.requestsInFlight) } ?? "no live worker uses it"
            var limit = "none"
            if let rate = backend.rateLimit {
                var parts: [String] = []
                if let perMinute = rate.limit.requestsPerMinute {
                    parts.append(String(format: "%.0f of %.0f requests/min free", rate.requestsFree ?? 0, perMinute))
                }
                if let perHour = rate.limit.audioSecondsPerHour {
                    parts.append(String(format: "%.0f of %.0f audio s/h free", rate.audioSecondsFree ?? 0, perHour))
                }
                limit = parts.isEmpty ? "none" : parts.joined(separator: ", ")
            }
            let errors = backend.errorsByClass.isEmpty ? "none" : backend.errorsByClass.map { "\($0.errorClass) \($0.attempts)" }.joined(separator: ", ")
            let health = backend.health
            return Backend(
                name: backend.name, health: health.rawValue,
                healthLabel: health == .paused ? "paused by \(backend.pausedBy) worker\(backend.pausedBy == 1 ? "" : "s")" : health.rawValue,
                outage: outage, window: window, rateLimit: limit, errors: errors, paid: WebPages.minutes(backend.paidSeconds),
                cost: HumanFormat.money(backend.costUSD))
        }
        return Fleet(
            queue: queue, hasQueue: !queue.isEmpty, oldestReady: fleet.oldestWaitingSeconds.map { HumanFormat.duration($0) } ?? "-",
            eta: fleet.estimate.description, speed: Self.pace(fleet.estimate),
            paidMinutes: WebPages.minutes(fleet.spend.paidSeconds), cost: HumanFormat.money(fleet.spend.costUSD),
            costLastHour: HumanFormat.money(fleet.spend.costLastHourUSD),
            costPerAudioHour: fleet.spend.costPerAudioHour.map { HumanFormat.money($0) } ?? "-",
            workers: workers, hasWorkers: !workers.isEmpty, liveWorkers: workers.filter(\.live).count, backends: backends,
            hasBackends: !backends.isEmpty)
    }
}
