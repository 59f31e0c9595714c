import Foundation
import StenoTestSupport
import Testing

@testable import StenoPostgres

@Suite("PostgresListener", .timeLimit(.minutes(2)))
struct PostgresListenerTests {
    @Test("receives notifications; after its session is killed it reconnects, says so, and keeps listening")
    func notificationsAndReconnect() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let client = database.client()
            let listener = try PostgresListener(configuration: database.configuration, channels: ["steno_test"])
            // A poll period longer than the suite's time limit: the notification can only come
            // by a wake-up on the socket.
            var events = try await listener.events(pollInterval: .seconds(3600)).makeAsyncIterator()

            try await client.notify(channel: "steno_test", payload: "first")
            let first = try await events.next()
            guard case .notification(let notification) = first else {
                Issue.record("expected a notification, got \(String(describing: first))")
                return
            }
            #expect(notification.channel == "steno_test")
            #expect(notification.payload == "first")

            // Kill the listener's session from outside, as a failover or an admin would.
            let killed = try await client.query(
                "SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE pid = \(await listenerBackend(client))"
            ).single().decode("killed", as: Bool.self)
            #expect(killed)

            #expect(try await events.next() == .reconnected)
            try await client.notify(channel: "steno_test", payload: "second")
            guard case .notification(let again) = try await events.next() else {
                Issue.record("expected the notification sent after reconnecting")
                return
            }
            #expect(again.payload == "second")
            await client.shutdown()
        }
    }

    /// The listener waits for notifications between its checks of the session. When the server's
    /// goodbye was read by one wait, the next found the session ended and opened a new one, then
    /// waited on it for the whole poll period: a session that listens to nothing (a loaded
    /// scripts/test run hung here for the suite's two minutes, its poll being an hour).
    @Test("a wait on the listening session, found ended, returns at once: it never waits on a new session that listens to nothing")
    func waitNeverMovesToANewSession() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let admin = database.client()
            let connection = PostgresConnection(configuration: database.configuration)
            try await connection.query("LISTEN steno_test", [])
            let listening = try await connection.sessionGeneration
            let pid: Int32 = try await connection.query("SELECT pg_backend_pid() AS pid").single().decode("pid")
            // Gone on the server: its goodbye and the end of the stream are on the socket.
            try await admin.terminateBackend(pid)

            let notifications = try await connection.waitForNotifications(timeout: .seconds(3600), session: listening)
            #expect(notifications.isEmpty)
            let now = try await connection.sessionGeneration
            #expect(now != listening, "the wait found the session ended and a new one opened")
            // The same wait on the new session does wait: a notification sent to it is read.
            try await connection.query("LISTEN steno_test", [])
            try await admin.notify(channel: "steno_test", payload: "on the new session")
            let again = try await connection.waitForNotifications(timeout: .seconds(3600), session: now)
            #expect(again.map(\.payload) == ["on the new session"])
            await connection.close()
            await admin.shutdown()
        }
    }

    @Test("channel names are validated, since LISTEN cannot take them as parameters")
    func channelValidation() {
        #expect(throws: PostgresError.self) {
            _ = try PostgresListener(configuration: PostgresConfiguration(), channels: ["x\"; DROP TABLE jobs; --"])
        }
    }

    /// The backend that is listening: the one session in `pg_stat_activity` that ran `LISTEN`.
    private func listenerBackend(_ client: PostgresClient) async throws -> Int32 {
        try await client.query(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()"
        ).single().decode("pid", as: Int32.self)
    }
}
