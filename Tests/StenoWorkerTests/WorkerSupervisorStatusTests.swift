import Foundation
import StenoCore
import Testing

@testable import StenoWorker

#if canImport(Glibc)
import Glibc
#endif

@Suite("steno-worker's supervisor: the status it exits with")
struct WorkerSupervisorStatusTests {
    @Test("stopped by SIGTERM, a child that died of the SIGTERM passed on (still starting) is a clean stop; other ends are reported")
    func shutdownStatus() {
        #expect(WorkerSupervisor.shutdownStatus(.signaled(SIGTERM)) == 0)
        #expect(WorkerSupervisor.shutdownStatus(.exited(0)) == 0)
        #expect(WorkerSupervisor.shutdownStatus(.exited(3)) == 3)
        #expect(WorkerSupervisor.shutdownStatus(.signaled(SIGSEGV)) == 128 + SIGSEGV)
        #expect(WorkerSupervisor.shutdownStatus(.signaled(SIGKILL)) == 128 + SIGKILL)
    }

    @Test("a child that keeps dying soon after its start is started again after a wait that doubles up to 30 s")
    func restartWait() {
        #expect(WorkerSupervisor.restartWait(lived: .seconds(5), previous: nil) == .milliseconds(100))
        #expect(WorkerSupervisor.restartWait(lived: .seconds(5), previous: .milliseconds(100)) == .seconds(1))
        #expect(WorkerSupervisor.restartWait(lived: .seconds(5), previous: .seconds(4)) == .seconds(8))
        #expect(WorkerSupervisor.restartWait(lived: .seconds(5), previous: .seconds(20)) == .seconds(30))
        #expect(WorkerSupervisor.restartWait(lived: .seconds(90), previous: .seconds(20)) == .milliseconds(100))
    }
}
