public import Foundation
public import StenoCore
import StenoInfrastructure
import StenoPostgres

extension WorkStore {
    /// A backend the fleet considers down (`backend_outages`).
    public struct Outage: Sendable, Equatable {
        public var backend: String
        public var reason: String
        public var since: Date
        public var probeAt: Date
        public var failures: Int

        public init(backend: String, reason: String, since: Date, probeAt: Date, failures: Int) {
            self.backend = backend
            self.reason = reason
            self.since = since
            self.probeAt = probeAt
            self.failures = failures
        }
    }

    /// Records that `backend` is down; returns the outage with the time of its next probe. A new
    /// outage waits `probe.initial`; a failed probe doubles the wait (`OutageProbe.next`); the
    /// failures of jobs that were already running when it began only count.
    public func recordOutage(backend: String, reason: String, probe: OutageProbe) async throws -> Outage {
        // One "now" for the whole call: its statements agree on the time.
        let now = time.now
        return try await client.withTransaction { connection in
            while true {
                // The row is made first, so that two jobs finding the backend down at once do not
                // both insert it: one makes it, the other counts its failure on it.
                let first = probe.next(after: nil)
                let inserted = try await connection.query(
                    """
                    INSERT INTO backend_outages (backend, reason, probe_at, probe_seconds)
                    VALUES (\(backend), \(reason), \(now) + make_interval(secs => \(first.seconds)), \(first.seconds))
                    ON CONFLICT (backend) DO NOTHING RETURNING backend
                    """)
                if !inserted.isEmpty { break }
                guard let current = try await connection.query(
                    "SELECT probe_seconds, probing FROM backend_outages WHERE backend = \(backend) FOR UPDATE"
                ).first else {
                    continue  // an answer ended it between the two statements: a new outage
                }
                let probing: Bool = try current.decode("probing")
                if !probing {
                    try await connection.query(
                        "UPDATE backend_outages SET failures = failures + 1, reason = \(reason), updated_at = now() WHERE backend = \(backend)")
                } else {
                    let seconds: Double = try current.decode("probe_seconds")
                    let wait = probe.next(after: .milliseconds(Int64(seconds * 1000)))
                    try await connection.query(
                        """
                        UPDATE backend_outages
                        SET failures = failures + 1, reason = \(reason), probing = false, probe_seconds = \(wait.seconds),
                            probe_at = \(now) + make_interval(secs => \(wait.seconds)), updated_at = \(now)
                        WHERE backend = \(backend)
                        """)
                }
                break
            }
            return try await Self.outage(of: backend, on: connection)
        }
    }

    /// Takes the probe of `backend` when it is due: true for exactly one worker, which then
    /// claims one chunk job; the next probe is due a whole wait later whatever it brings.
    public func takeProbe(backend: String) async throws -> Bool {
        // One "now" for the whole call: its statements agree on the time.
        let now = time.now
        return !(try await client.query(
            """
            UPDATE backend_outages SET probing = true, probe_at = \(now) + make_interval(secs => probe_seconds), updated_at = \(now)
            WHERE backend = \(backend) AND probe_at <= \(now)
            RETURNING backend
            """)).isEmpty
    }

    /// The backend answered: the outage is over for the whole fleet. Returns when it began.
    @discardableResult
    public func endOutage(backend: String) async throws -> Date? {
        try await client.query("DELETE FROM backend_outages WHERE backend = \(backend) RETURNING since")
            .first.map { try $0.decode("since", as: Date.self) }
    }

    private static func outage(of backend: String, on connection: PostgresConnection) async throws -> Outage {
        try Outage(row: try await connection.query(
            "SELECT backend, reason, since, probe_at, failures FROM backend_outages WHERE backend = \(backend)"
        ).single())
    }
}

extension WorkStore.Outage {
    init(row: PostgresRow) throws {
        self.init(
            backend: try row.decode("backend"), reason: try row.decode("reason"), since: try row.decode("since"),
            probeAt: try row.decode("probe_at"), failures: try row.decode("failures"))
    }
}
