import Foundation
public import StenoCore
public import StenoPostgres

/// The handlers' reads and writes of media, chapters, chunks and segments.
///
/// Every write that finishes a job runs in one transaction with the fenced end of the job
/// itself: when the lease was lost meanwhile, the whole transaction rolls back, so a job run
/// twice (or rescued half-way) leaves exactly one copy of every row.
public struct WorkStore: Sendable {
    public let client: PostgresClient
    /// What now is in the statements that decide by time: the database's, in production.
    public let time: StatementTime

    public init(client: PostgresClient, time: StatementTime = .database) {
        self.client = client
        self.time = time
    }

    /// Ends the attempt and moves what the job worked on (`Lifecycle.follow`), inside the
    /// caller's transaction; throws `leaseLost` (rolling the transaction back) when another
    /// worker holds the job now.
    @discardableResult
    public func end(_ lease: JobLease, as end: AttemptEnd, on connection: PostgresConnection) async throws -> EndedJob {
        guard let ended = try await JobStore.end([lease], as: end, now: time.now, on: connection).first else {
            throw StoreError(.leaseLost, "the lease of \(lease) was lost; nothing was written", jobID: lease.jobID)
        }
        try await Lifecycle.follow(ended, failure: end.failure, on: connection)
        return ended
    }

    /// Ends the attempts and moves what their jobs worked on, in one transaction. Returns the
    /// jobs whose lease still held; the others wrote nothing.
    @discardableResult
    public func end(_ leases: [JobLease], as end: AttemptEnd) async throws -> [EndedJob] {
        guard !leases.isEmpty else { return [] }
        return try await client.withTransaction { connection in
            let ended = try await JobStore.end(leases, as: end, now: time.now, on: connection)
            for job in ended {
                try await Lifecycle.follow(job, failure: end.failure, on: connection)
            }
            return ended
        }
    }

    /// Marks the job succeeded on `connection`, inside the caller's transaction; throws
    /// `leaseLost` (rolling the transaction back) when another worker holds it now.
    public func complete(_ lease: JobLease, on connection: PostgresConnection) async throws {
        try await end(lease, as: .succeeded(), on: connection)
    }

    /// How many of the job's attempts ended with a crash of its worker's process (evidence
    /// against the job, `WorkerExit.isCrash`).
    public func crashes(ofJob jobID: Int64) async throws -> Int {
        try await client.query(
            "SELECT count(*)::integer AS n FROM job_attempts WHERE job_id = \(jobID) AND outcome = \(literal: JobAttempt.Outcome.workerDied) AND crashed"
        ).single().decode("n")
    }

    /// Completes a job that had nothing left to do (or whose answer another attempt stored first).
    public func completeOnly(_ lease: JobLease, answerDiscarded: AnswerDisposal.DiscardReason? = nil) async throws {
        try await client.withTransaction { connection in
            try await end(lease, as: .succeeded(answerDiscarded: answerDiscarded), on: connection)
        }
    }

    /// Takes back the jobs of workers that stopped renewing their leases, and in the same
    /// transaction moves what they worked on (`Lifecycle.follow`), so that nothing is left
    /// `running` or `transcribing` with no job to finish it.
    public func rescueExpired(
        limit: Int = 1000, sparing owner: String? = nil, running: [Int64] = [], policy: RescuePolicy = RescuePolicy()
    ) async throws -> [EndedJob] {
        try await client.withTransaction { connection in
            let rescued = try await JobStore.rescues(limit: limit, sparing: owner, running: running, policy: policy, now: time.now, on: connection)
            for (job, end) in rescued {
                try await Lifecycle.follow(job, failure: end.failure, on: connection)
            }
            return rescued.map(\.job)
        }
    }

    /// What a supervisor does when the worker process it started has ended (`WorkerSupervisor`):
    /// takes back every job the worker `workerID` was running, each judged on the evidence of
    /// how the process ended (`exit`, `DeathVerdict`), follows them like any rescue, and marks
    /// the worker stopped with its exit. It waits for the rows the dead process's session may
    /// still lock: that session ends a moment after the process.
    public func rescueProcessDeath(workerID: String, exit: WorkerExit, policy: RescuePolicy = RescuePolicy()) async throws -> [EndedJob] {
        try await client.withTransaction { [time] connection in
            let held: PostgresQuery = """
                SELECT j.id, j.attempt, j.lease_owner AS owner FROM jobs j
                WHERE j.state = \(literal: JobState.running) AND j.lease_owner = \(workerID)
                ORDER BY j.id
                FOR UPDATE OF j
                """
            let rescued = try await JobStore.endDeaths(held: held, exit: exit, policy: policy, now: time.now, on: connection)
            for (job, end) in rescued {
                try await Lifecycle.follow(job, failure: end.failure, on: connection)
            }
            try await connection.query(
                """
                UPDATE workers SET status = \(literal: WorkerState.stopped), exit = \("\(exit)"), jobs_in_flight = 0,
                                   stopped_at = \(time.now), last_heartbeat_at = \(time.now)
                WHERE id = \(workerID)
                """)
            return rescued.map(\.job)
        }
    }

    static func json<Value: Encodable>(_ value: Value) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    static func decodeJSON<Value: Decodable>(_ type: Value.Type, _ text: String?) throws -> Value? {
        guard let text else { return nil }
        do {
            return try JSONDecoder().decode(type, from: Data(text.utf8))
        } catch {
            throw StoreError(.malformedRow, "a stored \(Value.self) has an unexpected shape; is every process running the same Steno version?")
        }
    }
}
