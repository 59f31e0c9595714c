import Dispatch
import Foundation
import StenoInfrastructure
import Synchronization
import Testing

@Suite("BlockingThread", .timeLimit(.minutes(1)))
struct BlockingThreadTests {
    @Test("work runs in the order it was handed over, and a caller in place never runs while work is queued or running")
    func order() async {
        let thread = BlockingThread(name: "test.order")
        let ran = Mutex<[String]>([])
        let gate = DispatchSemaphore(value: 0)
        thread.async {
            gate.wait()
            ran.withLock { $0.append("first") }
        }
        thread.async { ran.withLock { $0.append("second") } }
        // Queued or running, the work ahead may block for long: the caller is told so, at once.
        let inPlace: Void? = thread.runInPlaceIfIdle { ran.withLock { $0.append("in place") } }
        #expect(inPlace == nil)
        gate.signal()
        await thread.run { ran.withLock { $0.append("last") } }
        #expect(ran.withLock { $0 } == ["first", "second", "last"])
    }

    @Test("a caller in place on an idle thread runs at once and returns its value and its error")
    func inPlaceResults() throws {
        let thread = BlockingThread(name: "test.in-place")
        #expect(thread.runInPlaceIfIdle { 42 } == 42)
        struct Refused: Error, Equatable {}
        #expect(throws: Refused.self) { try thread.runInPlaceIfIdle { () throws(Refused) -> Int in throw Refused() } }
        #expect(thread.runInPlaceIfIdle { 7 } == 7, "a turn that threw is given back")
    }

    @Test("more blocked threads than libdispatch's pool holds (255) do not keep the one that frees them from running")
    func noSharedBound() async {
        let blocked = 300
        let gate = DispatchSemaphore(value: 0)
        let threads = (0..<blocked).map { BlockingThread(name: "test.blocked.\($0)") }
        let releaser = BlockingThread(name: "test.releaser")
        let remaining = Mutex(blocked)
        // On a shared pool the releaser would wait for a thread that the blocked work holds, and
        // only the suite's time limit would end the test.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            for thread in threads {
                thread.async {
                    gate.wait()
                    if remaining.withLock({ $0 -= 1; return $0 }) == 0 { continuation.resume() }
                }
            }
            releaser.async { for _ in 0..<blocked { gate.signal() } }
        }
        let finished = blocked - remaining.withLock { $0 }
        #expect(finished == blocked)
    }
}
