public import StenoPostgres

extension PostgresClient {
    /// Ends the server session `pid` (`pg_terminate_backend`) and waits until its backend is
    /// gone, so that the session's socket is closed when this returns.
    public func terminateBackend(_ pid: Int32) async throws {
        try await query("SELECT pg_terminate_backend(\(pid))")
        let gone = try await polled(within: .seconds(30)) {
            try await query("SELECT count(*)::integer AS n FROM pg_stat_activity WHERE pid = \(pid)").single().decode("n", as: Int.self) == 0 ? true : nil
        }
        guard gone == true else { throw TestEnvironmentError("backend \(pid) was still there 30 s after pg_terminate_backend") }
    }
}
