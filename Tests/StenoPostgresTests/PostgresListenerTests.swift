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
