import Foundation
import Logging
import ServiceLifecycle
import StenoCore
import StenoInfrastructure
import StenoMedia
import StenoPostgres
import StenoStore

/// Claims jobs in batches up to the worker's concurrency and runs each as a child task. At
/// shutdown (first in the service group's reverse order) it stops claiming, lets running jobs
/// finish within the grace period, and hands the rest back to the queue.
struct JobClaimer: Service {
    let configuration: WorkerConfiguration
    let client: PostgresClient
    let store: WorkStore
    let jobs: JobStore
    let runner: JobRunner
    let inFlight: InFlightJobs
    let availability: BackendAvailability
    let signals: WorkerSignals
    let logger: Logger

    func run() async throws {
        guard await signals.awaitPresence() else { return }
        await withGracefulShutdownHandler {
            // Discarding: a plain task group keeps every finished job's task until its result is
            // read, which the claim loop never does; a worker grew by about 10 KB a job that way.
            await withDiscardingTaskGroup { group in
                // On the database client's threads: a claim is a statement, with no hop off
                // Swift's cooperative pool and back; the jobs themselves run on the global executor.
                await client.onDatabaseThreads { await claimLoop(&group) }
                await drain()
                // Jobs still writing their outcome to a database that is away would hold the
                // shutdown for the database's whole reconnect window: their leases expire instead.
                if inFlight.count > 0 { group.cancelAll() }
            }
        } onGracefulShutdown: {
            signals.beginDraining()
        }
    }

    private func claimLoop(_ group: inout DiscardingTaskGroup) async {
        while !signals.isDraining && !Task.isCancelled {
            let room = Self.room(
                concurrency: configuration.concurrency, inFlight: inFlight.count, runningAlone: inFlight.runsAlone,
                makingRoomForAlone: signals.makeRoomForAlone)
            var claimed: [Job] = []
            if room > 0 {
                do {
                    claimed = try await claim(room: room)
                } catch {
                    logger.warning("could not claim jobs", metadata: ["error": "\(error)"])
                }
            }
            for job in claimed {
                guard let lease = job.lease else { continue }
                let signal = CancellationSignal()
                let answerHold = AnswerHold()
                inFlight.insert(job, lease: lease, signal: signal, answerHold: answerHold)
                if job.runsAlone {
                    logger.warning("running a job alone: it was running each time its worker died", metadata: [
                        "job.id": "\(job.id)", "job.kind": "\(job.kind.rawValue)", "crash_rescues": "\(job.crashRescues)",
                    ])
                }
                group.addTask(executorPreference: globalConcurrentExecutor) {
                    await runner.run(job, lease: lease, signal: signal, answerHold: answerHold)
                    inFlight.remove(job.id)
                    MediaMemory.returnFreePages()
                    signals.claim.wake()
                }
            }
            // A full batch may mean more is waiting: claim again at once while there is room.
            // Otherwise wait for a `NOTIFY`, a finished job, or a heartbeat that saw jobs due.
            if claimed.isEmpty || inFlight.count >= configuration.concurrency {
                await signals.claim.wait(timeout: nil)
            }
        }
    }

    /// Claims up to `room` jobs, chunk jobs only as `BackendAvailability` admits them. A worker
    /// with nothing in flight first looks for a job that must run alone.
    private func claim(room: Int) async throws -> [Job] {
        let worker = configuration.workerID
        let others: [JobKind] = [.media, .chapter, .merge]
        let admission = availability.admission()
        if inFlight.count == 0,
            let alone = try await jobs.claimAlone(worker: worker, lease: configuration.lease, kinds: admission == .open ? nil : others)
        {
            return [alone]
        }
        var claimed: [Job] = []
        switch admission {
        case .open:
            return try await jobs.claim(limit: room, worker: worker, lease: configuration.lease, kinds: nil, mode: signals.claimMode)
        case .held:
            break
        case .probe(let backend):
            if try await store.takeProbe(backend: backend) {
                claimed = try await jobs.claim(
                    limit: 1, worker: worker, lease: configuration.lease, kinds: [.chunk], mode: signals.claimMode)
                if !claimed.isEmpty {
                    logger.info("probing a backend that is down with one chunk job", metadata: ["backend": "\(backend)"])
                }
            }
        }
        if room > claimed.count {
            claimed += try await jobs.claim(limit: room - claimed.count, worker: worker, lease: configuration.lease, kinds: others)
        }
        return claimed
    }

    /// After shutdown began: waits up to the grace period for running jobs, then stops the rest,
    /// which hand themselves back to the queue, and releases any that did not, within 5 s more,
    /// a database restart included.
    private func drain() async {
        let clock = signals.clock
        let deadline = clock.now + configuration.gracePeriod
        if inFlight.count > 0 {
            logger.info("shutting down; waiting for running jobs", metadata: ["jobs": "\(inFlight.count)"])
        }
        // A cancelled task (the service group gave up on us) cannot wait: hand everything back now.
        while inFlight.count > 0 && clock.now < deadline && !Task.isCancelled {
            await signals.claim.wait(timeout: .milliseconds(100))
        }
        guard inFlight.count > 0 else { return }
        inFlight.stopAll(.shutdown)
        let handBack = clock.now + Self.handBackLimit
        while inFlight.count > 0 && clock.now < handBack && !Task.isCancelled {
            await signals.claim.wait(timeout: .milliseconds(50))
        }
        // Handed back while the time allows, also across a database restart; what is left
        // waits out its lease (a few seconds) and is rescued by the fleet.
        var left = inFlight.leases
        while !left.isEmpty && clock.now < handBack {
            let leases = left
            let attempt = Task { [store] in try await store.end(leases, as: .released) }
            let watchdog = Task { try await clock.sleep(until: handBack, tolerance: nil); attempt.cancel() }
            let outcome = await attempt.result
            watchdog.cancel()
            if case .success = outcome { break }
            try? await clock.sleep(for: .milliseconds(250))
            left = inFlight.leases
        }
    }

    /// The slots to fill now. A job that must run alone has the worker to itself; a worker
    /// picked to make room for one (`WorkerSignals.makeRoomForAlone`) fills none until its jobs
    /// are done, and then claims that job first (`claim(room:)`).
    static func room(concurrency: Int, inFlight: Int, runningAlone: Bool, makingRoomForAlone: Bool) -> Int {
        if runningAlone || (makingRoomForAlone && inFlight > 0) { return 0 }
        return max(0, concurrency - inFlight)
    }

    /// How long stopped jobs get to hand themselves back after the grace period.
    static let handBackLimit = Duration.seconds(5)
}
