import Foundation
import StenoStore
import Testing

@testable import StenoWorker

/// Which chunk jobs a claim may take, and what the heartbeat tells the operator: one rule.
@Suite struct BackendAvailabilityTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func outage(probeIn seconds: Double, backend: String = "primary") -> WorkStore.Outage {
        .init(backend: backend, reason: "HTTP 503", since: now.addingTimeInterval(-60), probeAt: now.addingTimeInterval(seconds), failures: 3)
    }

    @Test("with nothing paused or down every chunk job may be claimed, and nothing is reported")
    func open() {
        let snapshot = BackendAvailability.Snapshot()
        #expect(snapshot.admission(primary: "primary", outagesPause: true, now: now) == .open)
        let report = snapshot.report(primary: "primary", outagesPause: true, now: now)
        #expect(report.paused.isEmpty && report.message == nil)
    }

    @Test("a rejected configuration holds chunk jobs until its pause ends, then they flow again")
    func pausedConfiguration() {
        let snapshot = BackendAvailability.Snapshot(pausedUntil: ["primary": now.addingTimeInterval(30)])
        #expect(snapshot.admission(primary: "primary", outagesPause: true, now: now) == .held)
        #expect(snapshot.report(primary: "primary", outagesPause: true, now: now).message == "chunk jobs paused: backend primary rejected the configuration")
        #expect(snapshot.admission(primary: "primary", outagesPause: true, now: now.addingTimeInterval(31)) == .open)
        #expect(snapshot.report(primary: "primary", outagesPause: true, now: now.addingTimeInterval(31)).paused.isEmpty)
    }

    @Test("a backend that is down holds chunk jobs until its probe is due, then admits the probe")
    func outageAndProbe() {
        let waiting = BackendAvailability.Snapshot(outages: ["primary": outage(probeIn: 20)])
        #expect(waiting.admission(primary: "primary", outagesPause: true, now: now) == .held)
        let due = BackendAvailability.Snapshot(outages: ["primary": outage(probeIn: -1)])
        #expect(due.admission(primary: "primary", outagesPause: true, now: now) == .probe(backend: "primary"))
        let report = waiting.report(primary: "primary", outagesPause: true, now: now)
        #expect(report.paused == ["primary": now.addingTimeInterval(20)])
        #expect(report.message?.hasPrefix("chunk jobs paused: backend primary is down since ") == true)
        #expect(report.message?.contains("(HTTP 503); 3 failures, next probe at ") == true)
    }

    @Test("with a fallback, or for another backend, an outage holds nothing back")
    func outageIgnored() {
        let down = BackendAvailability.Snapshot(outages: ["primary": outage(probeIn: 20)])
        #expect(down.admission(primary: "primary", outagesPause: false, now: now) == .open)
        #expect(down.report(primary: "primary", outagesPause: false, now: now).message == nil)
        let other = BackendAvailability.Snapshot(outages: ["other": outage(probeIn: 20, backend: "other")])
        #expect(other.admission(primary: "primary", outagesPause: true, now: now) == .open)
    }

    @Test("a pause wins over a probe that is due: the configuration was rejected, a probe would fail again")
    func pauseBeatsProbe() {
        let snapshot = BackendAvailability.Snapshot(pausedUntil: ["primary": now.addingTimeInterval(30)], outages: ["primary": outage(probeIn: -1)])
        #expect(snapshot.admission(primary: "primary", outagesPause: true, now: now) == .held)
    }

    @Test("an answer ends a known outage once; the fleet's view replaces this worker's")
    func answeredAndReplaced() {
        let availability = BackendAvailability(primary: "primary", outagesPause: true)
        availability.learn(outage(probeIn: 20))
        #expect(!availability.chunkJobsClaimable)
        #expect(availability.answered("primary"))
        #expect(!availability.answered("primary"))
        #expect(availability.chunkJobsClaimable)
        availability.replaceOutages(with: [outage(probeIn: 20)])
        #expect(!availability.chunkJobsClaimable)
        availability.replaceOutages(with: [])
        #expect(availability.chunkJobsClaimable)
    }
}
