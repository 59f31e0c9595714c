import Testing

@testable import StenoWorker

@Suite("JobClaimer.room: the slots a claim fills")
struct ClaimRoomTests {
    @Test("a free slot is filled; a job running alone, or making room for one, fills none until the worker is empty")
    func room() {
        #expect(JobClaimer.room(concurrency: 4, inFlight: 1, runningAlone: false, makingRoomForAlone: false) == 3)
        #expect(JobClaimer.room(concurrency: 4, inFlight: 1, runningAlone: true, makingRoomForAlone: false) == 0)
        #expect(JobClaimer.room(concurrency: 4, inFlight: 3, runningAlone: false, makingRoomForAlone: true) == 0, "a slot freed while making room stays free")
        #expect(JobClaimer.room(concurrency: 4, inFlight: 0, runningAlone: false, makingRoomForAlone: true) == 4, "empty: the claim takes the job alone first")
        #expect(JobClaimer.room(concurrency: 2, inFlight: 5, runningAlone: false, makingRoomForAlone: false) == 0)
    }
}
