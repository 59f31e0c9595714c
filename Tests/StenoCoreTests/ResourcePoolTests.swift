import StenoCore
import StenoInfrastructure
import Synchronization
import StenoTestSupport
import Testing

@Suite("ResourcePool")
struct ResourcePoolTests {
    final class Counter: Sendable {
        let made = Atomic<Int>(0)
        let inUse = Atomic<Int>(0)
        let mostInUse = Atomic<Int>(0)
    }

    @Test("never lends more than its capacity, and each resource to one caller at a time")
    func capacity() async throws {
        let counter = Counter()
        let pool = ResourcePool<Int>(capacity: 3) { counter.made.add(1, ordering: .relaxed).newValue }
        let release = Latch()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<30 {
                group.addTask {
                    try await pool.withResource { _ in
                        let now = counter.inUse.add(1, ordering: .relaxed).newValue
                        counter.mostInUse.max(now, ordering: .relaxed)
                        _ = await release.wait()
                        counter.inUse.subtract(1, ordering: .relaxed)
                    }
                }
            }
            // Three hold a resource and the other 27 wait: then all may go, three at a time.
            try await poll(until: { counter.inUse.load(ordering: .relaxed) == 3 && pool.waitingCount == 27 }, "three in use, the rest waiting")
            release.open()
            try await group.waitForAll()
        }
        #expect(counter.made.load(ordering: .relaxed) == 3)
        #expect(counter.mostInUse.load(ordering: .relaxed) == 3)
    }

    final class Holding: Sendable {
        let started = Atomic(false)
        let letGo = Latch()
    }

    /// A task holding the pool's one resource until told to let go.
    static func hold(_ pool: ResourcePool<Int>, _ holding: Holding) -> Task<Void, any Error> {
        Task {
            try await pool.withResource { _ in
                holding.started.store(true, ordering: .releasing)
                _ = await holding.letGo.wait()
            }
        }
    }

    @Test("turns callers away once the waiting line is full")
    func exhausted() async throws {
        let pool = ResourcePool<Int>(capacity: 1, maximumWaiting: 1) { 1 }
        let holding = Holding()
        let holder = Self.hold(pool, holding)
        try await poll(until: { holding.started.load(ordering: .acquiring) }, "the holder holds the resource")
        let waiter = Task { try await pool.withResource { $0 } }
        try await poll(until: { pool.waitingCount == 1 }, "the waiter waits")
        await #expect(throws: ResourcePool<Int>.Exhausted.self) { try await pool.withResource { $0 } }
        holding.letGo.open()
        try await holder.value
        #expect(try await waiter.value == 1)
    }

    @Test("a cancelled waiter leaves the line, and a failed make frees its slot")
    func cancellationAndFailure() async throws {
        struct MakeFailed: Error {}
        let attempts = Atomic<Int>(0)
        let pool = ResourcePool<Int>(capacity: 1) {
            if attempts.add(1, ordering: .relaxed).newValue == 1 { throw MakeFailed() }
            return 7
        }
        await #expect(throws: MakeFailed.self) { try await pool.withResource { $0 } }
        #expect(try await pool.withResource { $0 } == 7)

        let holding = Holding()
        let holder = Self.hold(pool, holding)
        try await poll(until: { holding.started.load(ordering: .acquiring) }, "the holder holds the resource")
        let waiter = Task { try await pool.withResource { $0 } }
        try await poll(until: { pool.waitingCount == 1 }, "the waiter waits")
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(pool.waitingCount == 0)
        holding.letGo.open()
        try await holder.value
    }

    @Test("closing fails waiters and later callers")
    func close() async throws {
        let pool = ResourcePool<Int>(capacity: 1) { 1 }
        #expect(try await pool.withResource { $0 } == 1)
        #expect(pool.close() == [1])
        await #expect(throws: ResourcePool<Int>.Closed.self) { try await pool.withResource { $0 } }
    }
}
