import Foundation
import StenoInfrastructure
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("spawned processes")
struct SpawnedProcessTests {
    /// Linux sends the parent-death signal when the thread that started a child ends, not when
    /// its process does. A supervisor starts its worker from whatever thread runs it; if the
    /// child's life were tied to that thread, a pool thread idling out would kill a healthy
    /// worker, and the supervisor would take its jobs back as a death from outside (the chaos
    /// test's "live workers' attempts taken back as dead" caught this on a clean-clone run).
    @Test("a child that asked to end with its parent outlives the thread that started it")
    func childOutlivesStartingThread() async throws {
        let started = Mutex<(process: SpawnedProcess?, thread: String, error: String?)>((nil, "", nil))
        let ready = FileManager.default.temporaryDirectory.appendingPathComponent("steno-spawn-\(UUID().uuidString)").path
        defer { unlink(ready) }
        let thread = Thread {
            // "<pid>/task/<tid>": where this thread is listed while it lives.
            guard let tid = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self") else {
                started.withLock { $0.error = "cannot read /proc/thread-self" }
                return
            }
            do {
                // setpriv (util-linux) asks for the signal, as `SpawnedProcess.endWithParent` does in
                // the worker, then runs a shell that says so and sleeps; the request survives exec.
                let process = try SpawnedProcess(
                    executable: "/usr/bin/setpriv", name: "setpriv",
                    arguments: ["--pdeathsig", "KILL", "--", "sh", "-c", "touch \(ready); exec sleep 600"],
                    environment: ["PATH": "/usr/bin:/bin"])
                // The thread ends only once the child's request stands, as a supervisor's pool
                // thread may idle out long after its worker started.
                let deadline = ContinuousClock.now + .seconds(60)
                while access(ready, F_OK) != 0, ContinuousClock.now < deadline { usleep(1000) }
                started.withLock { $0 = (process, tid, nil) }
            } catch {
                started.withLock { $0 = (nil, tid, "\(error)") }
            }
        }
        thread.start()
        let deadline = ContinuousClock.now + .seconds(60)
        // Wait for the starting thread to be gone from the kernel's task list: by then any
        // parent-death signal tied to it has been sent.
        while true {
            let (process, tid, error) = started.withLock { $0 }
            if let error { Issue.record("cannot start setpriv: \(error)"); return }
            if process != nil, access(ready, F_OK) == 0, access("/proc/\(tid)", F_OK) != 0 { break }
            try #require(ContinuousClock.now < deadline, "the starting thread did not end")
            await Task.yield()
        }
        let process = try #require(started.withLock { $0.process })
        process.signal(SIGTERM)
        let status = await process.exit()
        // Ended by our SIGTERM (low seven bits of the wait status), not by a SIGKILL from the
        // starting thread's end.
        #expect(status & 0x7f == SIGTERM, "the child ended with wait status \(status), not by the SIGTERM sent to it")
    }

    @Test("a child's exit status and the signal that ended it come back from exit()")
    func exitReportsStatus() async throws {
        let exited = try SpawnedProcess(executable: "/bin/sh", name: "sh", arguments: ["-c", "exit 3"], environment: [:])
        let exitStatus = await exited.exit()
        #expect(exitStatus & 0x7f == 0 && (exitStatus >> 8) & 0xff == 3)
        let killed = try SpawnedProcess(executable: "/bin/sleep", name: "sleep", arguments: ["600"], environment: [:])
        killed.signal(SIGKILL)
        let killedStatus = await killed.exit()
        #expect(killedStatus & 0x7f == SIGKILL)
    }
}
