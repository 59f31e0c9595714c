import StenoCore
import StenoInfrastructure

/// Bounds the CPU-bound work (probe, decode, energy profile, encode) to a number of slots,
/// normally the cores, while many more network-bound jobs are in flight.
public final class ExtractionLimiter: Sendable {
    // The pool's resources are plain tokens: holding one is holding a slot.
    private let slots: ResourcePool<Int>

    public init(slots: Int) {
        self.slots = ResourcePool(capacity: max(1, slots)) { 0 }
    }

    public func run<Result>(_ body: () async throws -> Result) async throws -> Result {
        try await slots.withResource { _ in try await body() }
    }
}
