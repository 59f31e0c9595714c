import Foundation
import Logging
import ServiceLifecycle
import StenoCore
import StenoInfrastructure
import StenoPostgres
import StenoStore

/// Keeps this worker's leases and takes back those of workers that died or hung.
///
/// The heartbeat (every quarter of the lease) extends every running job's lease in one statement,
/// stops jobs whose cancel flag is set or whose lease was lost, renews the worker's row with what
/// the operator should see, and is the worker's only poll: the same statement says whether jobs
/// are due, leases expired, owners died or notices are due, and wakes the loop that acts on it.
/// Stops after the claimer (the service group stops services in reverse order), so leases are
/// kept while running jobs finish or are handed back.
struct LeaseKeeper: Service {
    let configuration: WorkerConfiguration
    let client: PostgresClient
    let store: WorkStore
    let jobs: JobStore
    let inFlight: InFlightJobs
    let availability: BackendAvailability
    let requests: AdaptiveLimiter
    let notifier: WebhookNotifier
    let signals: WorkerSignals
    let logger: Logger

    func run() async throws {
        guard await signals.awaitPresence() else { return }
        // Both loops talk mostly to the database: they run on its client's threads, where a
        // statement costs no hop off Swift's cooperative pool and back.
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await client.onDatabaseThreads { await keepLeases() } }
                group.addTask { await client.onDatabaseThreads { await rescue() } }
            }
        }
        [signals.claim, signals.rescue].forEach { $0.cancelScheduledWake() }
    }

    private func keepLeases() async {
        while !Task.isCancelled {
            let leases = inFlight.leases
            let beatStarted = signals.clock.now
            do {
                let results = try await jobs.heartbeat(leases, extendBy: configuration.lease)
                for (lease, result) in results {
                    switch result {
                    case .held(cancelRequested: true): inFlight.stop(lease.jobID, .cancelRequested)
                    case .held(cancelRequested: false): inFlight.renewed(lease.jobID, at: beatStarted)
                    case .lost: inFlight.stop(lease.jobID, .leaseLost)
                    }
                }
                // The pause shown is the one known before this beat; the beat brings the fleet's
                // outages for the next claim and the next beat.
                let (paused, message) = availability.report()
                let beat = try await store.heartbeatWorker(
                    workerID: configuration.workerID, status: WorkerState.reported(draining: signals.isDraining, pausedBackends: paused.count),
                    message: message, jobsInFlight: inFlight.count, pausedBackends: paused,
                    running: leases.map(\.jobID), webhookURL: configuration.webhookURL, noticesBackingOff: notifier.backingOff,
                    rescue: configuration.rescue,
                    requests: .init(backend: availability.primary, limit: requests.limit, inFlight: requests.inFlight))
                availability.replaceOutages(with: beat.outages)
                signals.claimMode = beat.claimMode
                signals.makeRoomForAlone = beat.makeRoomForAlone
                // Emptied while picked: the claim takes the job that runs alone.
                if beat.makeRoomForAlone && inFlight.count == 0 { signals.claim.wake() }
                act(on: beat.due)
            } catch {
                logger.warning("heartbeat failed", metadata: ["error": "\(error)"])
            }
            await signals.heartbeat.wait(timeout: configuration.heartbeatInterval)
        }
    }

    /// Wakes the loops that have something to do, now or when it falls due before the next beat.
    private func act(on due: WorkStore.DueWork) {
        let wakes = due.wakes(
            beforeNextBeat: configuration.heartbeatInterval.seconds, chunkJobsClaimable: availability.chunkJobsClaimable,
            draining: signals.isDraining)
        if let seconds = wakes.rescueIn { signals.rescue.wake(after: .seconds(seconds)) }
        if let seconds = wakes.claimIn { signals.claim.wake(after: .seconds(seconds)) }
        if wakes.notices { signals.notices.wake() }
    }

    /// Takes back the jobs of workers that died or hung, when a heartbeat saw some due; the
    /// first time included: a worker that starts waits out the confirmation of a death like any
    /// other (`RescuePolicy.confirmDelay`).
    private func rescue() async {
        while await signals.rescue.wait(timeout: nil) != .cancelled {
            do {
                let rescued = try await store.rescueExpired(
                    sparing: configuration.workerID, running: inFlight.leases.map(\.jobID), policy: configuration.rescue)
                if !rescued.isEmpty {
                    logger.warning("took back the jobs of workers that died or stopped renewing their leases", metadata: [
                        "jobs": "\(rescued.map(\.id))", "previous_owners": "\(Set(rescued.map(\.worker)).sorted())",
                    ])
                }
            } catch {
                logger.warning("rescue failed", metadata: ["error": "\(error)"])
            }
        }
    }
}
