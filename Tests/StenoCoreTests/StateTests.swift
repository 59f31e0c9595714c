import StenoCore
import Testing

@Suite("States")
struct StateTests {
    @Test("a chapter is done when every chunk is covered: succeeded, or split into pieces that are")
    func chunkCoverage() {
        #expect(ChunkState.allCases.filter(\.isCovered) == [.succeeded, .split])
        #expect(ChunkState.allCases.filter { !$0.isFinished } == [.queued, .running, .failed])
    }

    @Test("finished chapters are the ones no job moves any more")
    func chapterFinished() {
        #expect(ChapterState.allCases.filter(\.isFinished) == [.succeeded, .failed, .cancelled])
    }

    @Test("a worker reports draining first, then paused when a backend is paused, else running", arguments: [
        (true, 0, WorkerState.draining), (true, 2, .draining), (false, 1, .paused), (false, 0, .running),
    ])
    func workerReport(draining: Bool, paused: Int, expected: WorkerState) {
        #expect(WorkerState.reported(draining: draining, pausedBackends: paused) == expected)
    }

    @Test("the states' names are the database's")
    func rawValues() {
        #expect(ChunkState.split.rawValue == "split")
        #expect(ChapterState.merging.rawValue == "merging")
        #expect(WorkerState.stopped.rawValue == "stopped")
        #expect(JobState.allCases.map(\.rawValue) == ["queued", "running", "succeeded", "failed", "cancelled"])
    }
}
