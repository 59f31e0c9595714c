import StenoStore
import Testing

@testable import StenoWorker

/// What a heartbeat's view of due work wakes: the worker's only poll.
@Suite struct DueWorkTests {
    typealias Due = WorkStore.DueWork

    @Test("nothing due wakes nothing: an idle worker sends only its heartbeat")
    func idle() {
        #expect(Due().wakes(beforeNextBeat: 2.5, chunkJobsClaimable: true, draining: false) == .init())
    }

    @Test("jobs due now or before the next heartbeat wake the claim loop then; later ones are the next heartbeat's")
    func claims() {
        #expect(Due(chunkJobsIn: -3).wakes(beforeNextBeat: 2.5, chunkJobsClaimable: true, draining: false).claimIn == 0)
        #expect(Due(chunkJobsIn: 1.2).wakes(beforeNextBeat: 2.5, chunkJobsClaimable: true, draining: false).claimIn == 1.2)
        #expect(Due(chunkJobsIn: 2.5).wakes(beforeNextBeat: 2.5, chunkJobsClaimable: true, draining: false).claimIn == nil)
        #expect(Due(chunkJobsIn: 2, otherJobsIn: 0.5).wakes(beforeNextBeat: 2.5, chunkJobsClaimable: true, draining: false).claimIn == 0.5)
    }

    @Test("chunk jobs of a paused or down backend wake nothing, other jobs still do; a draining worker claims nothing")
    func pausedAndDraining() {
        #expect(Due(chunkJobsIn: 0).wakes(beforeNextBeat: 2.5, chunkJobsClaimable: false, draining: false).claimIn == nil)
        #expect(Due(chunkJobsIn: 0, otherJobsIn: 1).wakes(beforeNextBeat: 2.5, chunkJobsClaimable: false, draining: false).claimIn == 1)
        let draining = Due(chunkJobsIn: 0, leaseExpiresIn: 0, notices: true).wakes(beforeNextBeat: 2.5, chunkJobsClaimable: true, draining: true)
        #expect(draining.claimIn == nil && draining.rescueIn == 0.05 && draining.notices)
    }

    @Test("a lease about to expire wakes the rescue just after it expires; a live worker's renewed leases do not")
    func rescue() {
        #expect(Due(leaseExpiresIn: -4).wakes(beforeNextBeat: 2.5, chunkJobsClaimable: true, draining: false).rescueIn == 0)
        #expect(Due(leaseExpiresIn: 1).wakes(beforeNextBeat: 2.5, chunkJobsClaimable: true, draining: false).rescueIn == 1.05)
        // Renewed every quarter of the lease, a live worker's leases are at least 7.5 s away.
        #expect(Due(leaseExpiresIn: 7.5).wakes(beforeNextBeat: 2.5, chunkJobsClaimable: true, draining: false).rescueIn == nil)
    }
}
