import Synchronization

/// Set once when the calling task is cancelled; read between packets on the media queue.
final class CancellationFlag: Sendable {
    private let state = Atomic<Bool>(false)

    func set() { state.store(true, ordering: .relaxed) }
    var isSet: Bool { state.load(ordering: .relaxed) }
}
