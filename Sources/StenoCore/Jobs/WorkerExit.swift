/// How a worker's process ended, as the supervisor that started it saw it (`waitpid`).
///
/// The evidence a dead worker leaves about the job it was running: a process that crashed
/// (a trap or a bad memory access: SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGSYS, or an
/// abort) did it itself, maybe because of what it was running; a process killed from outside
/// (SIGKILL: the OOM killer, a preempted machine, `kill -9`; SIGTERM, SIGINT, SIGHUP, SIGQUIT)
/// says nothing about its jobs. An exit with a status, zero or not, is the program stopping
/// itself on purpose (a lost database, a bad setting), not a crash.
public enum WorkerExit: Sendable, Hashable, CustomStringConvertible {
    /// Ended by a signal (Linux numbering).
    case signaled(Int32)
    /// Exited with this status.
    case exited(Int32)

    /// The signals a process raises against itself when it crashes.
    static let crashSignals: Set<Int32> = [4, 5, 6, 7, 8, 11, 31]  // ILL, TRAP, ABRT, BUS, FPE, SEGV, SYS

    static let names: [Int32: String] = [
        1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL",
        10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM", 24: "SIGXCPU", 25: "SIGXFSZ", 31: "SIGSYS",
    ]

    /// Whether the end is evidence against what the process was running: it crashed.
    public var isCrash: Bool {
        switch self {
        case .signaled(let signal): Self.crashSignals.contains(signal)
        case .exited: false
        }
    }

    /// `SIGSEGV`, `signal 40`, `exit 3`: what `workers.exit` and `job_attempts.worker_exit` hold.
    public var description: String {
        switch self {
        case .signaled(let signal): Self.names[signal] ?? "signal \(signal)"
        case .exited(let status): "exit \(status)"
        }
    }

    /// Reads `description` back; nil for anything else.
    public init?(_ text: String) {
        if let signal = Self.names.first(where: { $0.value == text })?.key {
            self = .signaled(signal)
        } else if text.hasPrefix("signal "), let signal = Int32(text.dropFirst(7)) {
            self = .signaled(signal)
        } else if text.hasPrefix("exit "), let status = Int32(text.dropFirst(5)) {
            self = .exited(status)
        } else {
            return nil
        }
    }

    /// From a `waitpid` status word (WIFEXITED and WTERMSIG, which Swift does not import).
    public init(waitStatus: Int32) {
        let signal = waitStatus & 0x7f
        self = signal == 0 ? .exited((waitStatus >> 8) & 0xff) : .signaled(signal)
    }
}
