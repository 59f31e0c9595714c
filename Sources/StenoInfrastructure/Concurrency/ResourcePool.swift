import Synchronization

/// Lends up to `capacity` resources (database connections, speech recognisers) to one task at a
/// time each. Resources are made on demand by `make`; callers beyond capacity wait in order, and
/// with `maximumWaiting` set, callers beyond that are turned away at once instead of queueing.
public final class ResourcePool<Resource: Sendable>: Sendable {
    /// The waiting line was full.
    public struct Exhausted: Error, Sendable {}
    /// The pool was closed.
    public struct Closed: Error, Sendable {}

    public let capacity: Int
    public let maximumWaiting: Int?
    private let make: @Sendable () async throws -> Resource

    private enum Grant: Sendable {
        case resource(Resource)
        case make
    }

    private struct Waiter {
        var id: Int
        var continuation: CheckedContinuation<Grant, any Error>
    }

    private struct State: ~Copyable {
        var idle: [Resource] = []
        var made = 0
        var waiters: [Waiter] = []
        var nextWaiterID = 0
        var closed = false
    }

    private let state = Mutex(State())

    public init(capacity: Int, maximumWaiting: Int? = nil, make: @escaping @Sendable () async throws -> Resource) {
        precondition(capacity > 0, "a pool holds at least one resource")
        self.capacity = capacity
        self.maximumWaiting = maximumWaiting
        self.make = make
    }

    /// Lends a resource for the duration of `body`.
    public func withResource<Result>(_ body: (Resource) async throws -> Result) async throws -> Result {
        let resource = try await lease()
        defer { giveBack(resource) }
        return try await body(resource)
    }

    /// Makes every resource now, so that the first callers do not pay for it.
    public func prewarm() async throws {
        try await withThrowingTaskGroup(of: Resource.self) { group in
            let missing = state.withLock { state -> Int in
                let missing = capacity - state.made
                state.made = capacity
                return missing
            }
            for _ in 0..<missing {
                group.addTask { try await self.make() }
            }
            do {
                for try await resource in group {
                    giveBack(resource)
                }
            } catch {
                state.withLock { $0.made -= missing }
                throw error
            }
        }
    }

    /// How many callers are waiting for a resource.
    public var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// How many resources are lent out (or being made for a caller) now.
    public var lentCount: Int { state.withLock { $0.made - $0.idle.count } }

    /// Fails every waiter and later caller; returns the idle resources for the owner to close.
    public func close() -> [Resource] {
        let (idle, waiters) = state.withLock { state in
            state.closed = true
            defer {
                state.idle = []
                state.waiters = []
            }
            return (state.idle, state.waiters)
        }
        for waiter in waiters {
            waiter.continuation.resume(throwing: Closed())
        }
        return idle
    }

    private func lease() async throws -> Resource {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        let grant: Grant = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let immediate: Swift.Result<Grant, any Error>? = state.withLock { state in
                    if state.closed { return .failure(Closed()) }
                    if let resource = state.idle.popLast() { return .success(.resource(resource)) }
                    if state.made < capacity {
                        state.made += 1
                        return .success(.make)
                    }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if let maximumWaiting, state.waiters.count >= maximumWaiting { return .failure(Exhausted()) }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let immediate {
                    continuation.resume(with: immediate)
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
        switch grant {
        case .resource(let resource):
            return resource
        case .make:
            do {
                return try await make()
            } catch {
                // The slot is free again: let the next waiter try to make it.
                let next = state.withLock { state -> Waiter? in
                    if state.waiters.isEmpty {
                        state.made -= 1
                        return nil
                    }
                    return state.waiters.removeFirst()
                }
                next?.continuation.resume(returning: .make)
                throw error
            }
        }
    }

    private func giveBack(_ resource: Resource) {
        let waiter = state.withLock { state -> Waiter? in
            if !state.waiters.isEmpty { return state.waiters.removeFirst() }
            if state.closed {
                state.made -= 1
            } else {
                state.idle.append(resource)
            }
            return nil
        }
        waiter?.continuation.resume(returning: .resource(resource))
    }
}
