import Logging

/// Follows `LISTEN` channels on a connection of its own.
///
/// When the connection breaks it reconnects with backoff, listens again and yields
/// `.reconnected`: notifications sent in between are lost, so a consumer should poll once.
public final class PostgresListener: Sendable {
    public enum Event: Sendable, Equatable {
        case notification(PostgresNotification)
        /// The session was re-established; anything sent meanwhile was missed.
        case reconnected
    }

    public let channels: [String]
    private let connection: PostgresConnection
    private let logger: Logger

    public init(configuration: PostgresConfiguration, channels: [String], logger: Logger = Logger(label: "steno.postgres.listener")) throws(PostgresError) {
        for channel in channels where !Self.isValidChannel(channel) {
            throw PostgresError(.invalidConfiguration, "channel name \(channel) must be lowercase letters, digits and underscores")
        }
        self.channels = channels
        self.connection = PostgresConnection(configuration: configuration, logger: logger)
        self.logger = logger
    }

    /// Listens until the consuming task stops iterating. The first event arrives only after
    /// `LISTEN` has taken effect, so nothing sent after `ready` returns is missed.
    public func events(pollInterval: Duration = .milliseconds(250)) async throws -> AsyncThrowingStream<Event, any Error> {
        var listeningGeneration = try await listen()
        let (stream, continuation) = AsyncThrowingStream<Event, any Error>.makeStream()
        let task = Task { [connection, logger] in
            var failureDelay = Duration.milliseconds(100)
            while !Task.isCancelled {
                do {
                    let generation = try await connection.sessionGeneration
                    if generation != listeningGeneration {
                        listeningGeneration = try await listen()
                        continuation.yield(.reconnected)
                    }
                    for notification in try await connection.waitForNotifications(timeout: pollInterval) {
                        continuation.yield(.notification(notification))
                    }
                    failureDelay = .milliseconds(100)
                } catch let error as PostgresError where error.code == .cancelled {
                    break
                } catch {
                    logger.warning("listener lost its database connection; reconnecting", metadata: ["error": "\(error)"])
                    try? await Task.sleep(for: failureDelay)
                    failureDelay = min(failureDelay * 2, .seconds(5))
                }
            }
            continuation.finish()
            await connection.close()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private func listen() async throws(PostgresError) -> Int {
        for channel in channels {
            // Channel names are identifiers and cannot be parameters; they were validated in init.
            try await connection.query("LISTEN \"\(channel)\"", [])
        }
        return try await connection.sessionGeneration
    }

    static func isValidChannel(_ channel: String) -> Bool {
        !channel.isEmpty && channel.count <= 63
            && channel.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }
}
