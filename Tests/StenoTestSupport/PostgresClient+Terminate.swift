import StenoPostgres

extension PostgresClient {
    /// Ends the server session `pid` (`pg_terminate_backend`) and waits until its backend is
    /// gone, so that the session's socket is closed when this returns.
    public func terminateBackend(_ pid: Int32) async throws {
        try await query("SELECT pg_terminate_backend(\(pid))")
        for _ in 0..<100 {
            let left: Int = try await query("SELECT count(*)::integer AS n FROM pg_stat_activity WHERE pid = \(pid)").single().decode("n")
            if left == 0 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestEnvironmentError("backend \(pid) was still there 5 s after pg_terminate_backend")
    }
}
