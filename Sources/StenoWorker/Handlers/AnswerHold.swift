import Synchronization

/// Held while a chunk job stores an answer it already has: a lost lease then does not stop the
/// job, since the first answer for a chunk is kept whichever attempt brought it; stopping the
/// write would throw the paid-for answer away and the next attempt would upload the audio again.
/// A cancel request and shutdown still stop it.
public final class AnswerHold: Sendable {
    private let held = Atomic<Bool>(false)

    public init() {}

    var isHeld: Bool { held.load(ordering: .acquiring) }

    func holding<Result>(_ body: () async throws -> Result) async throws -> Result {
        held.store(true, ordering: .releasing)
        defer { held.store(false, ordering: .releasing) }
        return try await body()
    }
}
