import Foundation
public import Logging
public import ServiceLifecycle
public import StenoCore
public import StenoInfrastructure
public import StenoPostgres
import StenoStore
import Synchronization

/// `steno-worker` as its container or service manager starts it: a small parent process that
/// runs the worker as its child, and sees how the child ends (docs/architecture.md, "Deaths and
/// blame").
///
/// A process cannot report its own SIGKILL, and the fleet cannot tell a crash from a kill: it
/// only sees a database session end. The parent sees the exit status. When the child ends, the
/// parent takes its jobs back itself, each judged on that evidence (`DeathVerdict`): a crash
/// signal counts against the jobs it was running, a kill from outside does not. While the
/// parent's own session holds its lock (`RescuePolicy.supervisorNamespace`), the rest of the
/// fleet leaves a dead child's jobs to it. A child that crashed or was killed is started again,
/// after a wait that grows while it keeps ending soon after its start; one that exited by
/// itself (a bad setting, a database gone for good) ends the parent with its status. SIGTERM
/// and SIGINT are passed on to the child, whose graceful shutdown is the worker's. The child
/// ends with SIGKILL when the parent ends (`SpawnedProcess.endWithParent`).
public struct WorkerSupervisor: Service, CustomStringConvertible {
    /// What the child is started with. Its environment and arguments hold the worker's secrets
    /// (the database password, the API key): its description names the program only.
    public struct Child: Sendable, CustomStringConvertible {
        public var executable: String
        /// What the child is called (`argv[0]`), as `ps` shows it.
        public var name: String
        public var arguments: [String]
        public var environment: [String: String]

        public init(executable: String, name: String, arguments: [String], environment: [String: String]) {
            self.executable = executable
            self.name = name
            self.arguments = arguments
            self.environment = environment
        }

        public var description: String { "Child(\(name))" }
    }

    /// The child's variable that tells it it is supervised: `<parent pid>:<supervisor key>`.
    public static let childVariable = "STENO_WORKER_SUPERVISOR"

    let child: Child
    let workerID: String
    let database: PostgresConfiguration
    let store: WorkStore
    let policy: RescuePolicy
    let clock: any MonotonicClock
    let logger: Logger
    /// The status the parent exits with, once this service has returned.
    public let exitStatus = ExitStatus()

    /// The status the parent exits with: its child's, as a shell reports it.
    public final class ExitStatus: Sendable {
        private let status = Mutex<Int32>(0)
        public var value: Int32 { status.withLock { $0 } }
        func set(_ value: Int32) { status.withLock { $0 = value } }
    }

    public init(
        child: Child, workerID: String, database: PostgresConfiguration, client: PostgresClient, policy: RescuePolicy,
        clock: any MonotonicClock = .continuous, logger: Logger
    ) {
        self.child = child
        self.workerID = workerID
        self.database = database
        self.store = WorkStore(client: client)
        self.policy = policy
        self.clock = clock
        self.logger = logger
    }

    /// Safe to log: a service group names its services in its errors.
    public var description: String { "WorkerSupervisor(worker \(workerID))" }

    public func run() async throws {
        let key = Int32.random(in: 1...Int32.max)
        let lock = Task { await holdLock(key: key) }
        defer { lock.cancel() }
        var wait: Duration?
        while true {
            var environment = child.environment
            environment[Self.childVariable] = "\(ProcessInfo.processInfo.processIdentifier):\(key)"
            environment["STENO_WORKER_ID"] = workerID
            let process: SpawnedProcess
            do {
                process = try SpawnedProcess(
                    executable: child.executable, name: child.name, arguments: child.arguments, environment: environment)
            } catch {
                logger.critical("cannot start the worker process", metadata: ["error": "\(error)"])
                exitStatus.set(1)
                return
            }
            let began = clock.now
            let status = await withGracefulShutdownHandler {
                await process.exit()
            } onGracefulShutdown: {
                process.signal(SIGTERM)
            }
            let exit = WorkerExit(waitStatus: status)
            // A child that exited ran its own shutdown: it handed back what it could, and its
            // leases take back the rest. One ended by a signal left its jobs running. At shutdown
            // the parent does not wait for the database for them: it ends a moment later, and
            // then the fleet takes them back.
            if case .signaled = exit, !Task.isShuttingDownGracefully { await takeBack(exit) }
            if Task.isShuttingDownGracefully || Task.isCancelled {
                exitStatus.set(Self.shutdownStatus(exit))
                return
            }
            guard case .signaled = exit else {
                // It stopped itself (a bad setting, the database gone past its wait): restarting
                // would only repeat that; the container's restart policy decides.
                exitStatus.set(Self.status(exit))
                return
            }
            let next = Self.restartWait(lived: clock.now - began, previous: wait)
            wait = next
            logger.error("the worker process ended with \(exit); starting it again", metadata: [
                "worker.id": "\(workerID)", "exit": "\(exit)", "crash": "\(exit.isCrash)", "restart_in_seconds": "\(next.seconds)",
            ])
            try? await cancelWhenGracefulShutdown { try await clock.sleep(for: next) }
            if Task.isShuttingDownGracefully || Task.isCancelled { return }
        }
    }

    /// How long to wait before starting a child again: at once (a tenth of a second) after a
    /// child that lived a while; doubling, up to 30 s, while children keep ending within a minute
    /// of their start (a crash at startup would otherwise spin).
    public static func restartWait(lived: Duration, previous: Duration?) -> Duration {
        guard let previous, lived < .seconds(60) else { return .milliseconds(100) }
        return min(max(previous * 2, .seconds(1)), .seconds(30))
    }

    /// The status the parent exits with when it stopped: 0 when its child ended by the SIGTERM
    /// the parent sent it, which a child still starting (before it handles signals) dies of at
    /// once, with nothing to hand back; else the child's end, as a shell reports it.
    static func shutdownStatus(_ exit: WorkerExit) -> Int32 {
        exit == .signaled(SIGTERM) ? 0 : status(exit)
    }

    /// The status the parent exits with for its child's end, as a shell reports it.
    static func status(_ exit: WorkerExit) -> Int32 {
        switch exit {
        case .exited(let status): status
        case .signaled(let signal): 128 + signal
        }
    }

    /// Takes the dead child's jobs back with the evidence of how it ended, trying again while
    /// the database is away (a restart), for as long as the database wait allows. A shutdown
    /// ends the wait at once: the jobs' leases take them back then, without the evidence.
    private func takeBack(_ exit: WorkerExit) async {
        await cancelWhenGracefulShutdown { await self.takeBackUntilDeadline(exit) }
    }

    private func takeBackUntilDeadline(_ exit: WorkerExit) async {
        let deadline = clock.now + database.reconnectWindow
        while !Task.isCancelled {
            do {
                let jobs = try await store.rescueProcessDeath(workerID: workerID, exit: exit, policy: policy)
                if !jobs.isEmpty {
                    logger.warning("took back the jobs of the worker process that ended with \(exit)", metadata: [
                        "worker.id": "\(workerID)", "exit": "\(exit)", "jobs": "\(jobs.map(\.id))",
                        "failed": "\(jobs.filter { $0.state == .failed }.map(\.id))",
                    ])
                }
                return
            } catch {
                guard clock.now < deadline, !Task.isCancelled else {
                    logger.error(
                        "could not take back the jobs of the worker process that ended; their lease will", metadata: ["error": "\(error)"])
                    return
                }
                try? await clock.sleep(for: .seconds(1))
            }
        }
    }

    /// The supervisor's database chatter (waiting for the server, reconnecting) at warning and
    /// above: its child logs the same waits, and a child that cannot start must be what the log says.
    public static func quiet(_ logger: Logger) -> Logger {
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .warning)
        return quiet
    }

    /// Holds the supervisor's lock for as long as this process lives, taking it again after a
    /// database restart.
    private func holdLock(key: Int32) async {
        while !Task.isCancelled {
            do {
                let listener = try PostgresListener(
                    configuration: database, channels: [], sessionLock: .init(namespace: RescuePolicy.supervisorNamespace, key: key),
                    clock: clock, logger: Self.quiet(logger))
                for try await _ in try await listener.events() {}
            } catch {
                logger.debug("the supervisor's lock session failed; trying again", metadata: ["error": "\(error)"])
            }
            try? await clock.sleep(for: .seconds(1))
        }
    }
}
