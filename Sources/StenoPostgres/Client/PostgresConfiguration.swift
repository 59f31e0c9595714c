public import Foundation
public import StenoInfrastructure

/// Where and how to connect.
///
/// The connection string is anything libpq accepts: a `postgres://` URL or a keyword string
/// (`host=... dbname=...`). Empty means libpq's own `PG*` environment variables and defaults.
public struct PostgresConfiguration: Sendable {
    public var connectionString: String
    /// Overrides any password in the connection string; read from a `*_FILE` path by `fromEnvironment`.
    public var password: String?
    public var applicationName: String
    /// How long one connection attempt may take (libpq's `connect_timeout`).
    public var connectTimeout: Duration
    /// How long a broken or missing connection is retried, with backoff, before a call fails.
    public var reconnectWindow: Duration
    /// Where sessions that must stay one session go (LISTEN, the worker's liveness lock, the
    /// migrations' lock) when `connectionString` is a pooler in transaction mode, such as
    /// PgBouncer (`STENO_DATABASE_DIRECT_URL`). Nil: the same place as statements.
    public var directConnectionString: String?
    /// Whether statements are prepared by name once per session. Off behind a pooler in
    /// transaction mode, which gives each transaction whichever server session is free; so
    /// derived from `directConnectionString`, which names the direct server only behind one.
    public var preparesStatements: Bool { directConnectionString == nil }
    /// The clock the reconnect window and its backoff run on: the continuous clock, or a test's.
    public var clock: any MonotonicClock = .continuous

    public init(
        connectionString: String = "",
        password: String? = nil,
        applicationName: String = "steno",
        connectTimeout: Duration = .seconds(10),
        reconnectWindow: Duration = .seconds(30),
        directConnectionString: String? = nil
    ) {
        self.directConnectionString = directConnectionString
        self.connectionString = connectionString
        self.password = password
        self.applicationName = applicationName
        self.connectTimeout = connectTimeout
        self.reconnectWindow = reconnectWindow
    }

    /// The variable that sets `reconnectWindow`: how long a process waits for a database that
    /// is not up yet (a container started beside it) or restarting, before it gives up.
    public static let waitVariable = "STENO_DATABASE_WAIT_SECONDS"
    public static let waitRange = 0...3600
    /// A worker may start long before its database (compose, Kubernetes): it waits a minute.
    public static let workerWait = Duration.seconds(60)
    /// A person at the CLI wants an answer soon.
    public static let cliWait = Duration.seconds(10)

    /// The variable that names the direct server behind a pooler in transaction mode.
    public static let directURLVariable = "STENO_DATABASE_DIRECT_URL"

    /// The configuration for a session that must stay one session: LISTEN and session locks.
    public var direct: PostgresConfiguration {
        var direct = self
        direct.connectionString = directConnectionString ?? connectionString
        direct.directConnectionString = nil
        return direct
    }

    /// Reads `STENO_DATABASE_URL`, `STENO_DATABASE_DIRECT_URL`, `STENO_DATABASE_PASSWORD` or
    /// `STENO_DATABASE_PASSWORD_FILE`, and `STENO_DATABASE_WAIT_SECONDS` (else `defaultWait`).
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment,
        applicationName: String = "steno",
        defaultWait: Duration = .seconds(30)
    ) throws(PostgresError) -> PostgresConfiguration {
        var configuration = PostgresConfiguration(
            connectionString: environment["STENO_DATABASE_URL"] ?? "",
            applicationName: applicationName,
            reconnectWindow: defaultWait,
            directConnectionString: environment[directURLVariable].flatMap { $0.isEmpty ? nil : $0 })
        do {
            if let seconds = try SettingValue.integer(SettingText.from(variable: waitVariable, in: environment), in: waitRange, unit: "seconds") {
                configuration.reconnectWindow = .seconds(seconds)
            }
        } catch {
            throw PostgresError(.invalidConfiguration, error.description)
        }
        if let path = environment["STENO_DATABASE_PASSWORD_FILE"], !path.isEmpty {
            configuration.password = try readSecret(path: path, variable: "STENO_DATABASE_PASSWORD_FILE")
        } else if let password = environment["STENO_DATABASE_PASSWORD"], !password.isEmpty {
            configuration.password = password
        }
        return configuration
    }

    /// The parameters for `PQconnectdbParams`, which expands `dbname` as a URL or keyword string
    /// and applies keywords in order: those before `dbname` are defaults it may override, those
    /// after it override what it sets.
    var libpqParameters: [(keyword: String, value: String)] {
        // TCP keepalives find a server that vanished without closing the connection (a host
        // lost in a failover) within about a minute, where the system's defaults take over two
        // hours. They are defaults: a URL or keyword string that sets them wins.
        var parameters: [(String, String)] = Self.keepalives
        if !connectionString.isEmpty {
            parameters.append(("dbname", connectionString))
        }
        if let password {
            parameters.append(("password", password))
        }
        parameters.append(("fallback_application_name", applicationName))
        parameters.append(("connect_timeout", String(max(2, Int(connectTimeout.components.seconds)))))
        return parameters
    }

    static let keepalives = [("keepalives", "1"), ("keepalives_idle", "30"), ("keepalives_interval", "10"), ("keepalives_count", "3")]

    /// The connection string with any password masked, for messages.
    public var redactedConnectionString: String {
        SecretRedactor().redact(connectionString)
    }

    /// `text` with the connection string's password, and the separate password, masked: libpq
    /// quotes a connection string it cannot parse whole in its error message.
    public func redacting(_ text: String) -> String {
        let secrets = [password, ConnectionStringRedaction.password(in: connectionString), directConnectionString.flatMap(ConnectionStringRedaction.password(in:))]
        return SecretRedactor(secrets: secrets.compactMap { $0 }).redact(text)
    }

    static func readSecret(path: String, variable: String) throws(PostgresError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PostgresError(
                .invalidConfiguration,
                "\(variable) names \(path), which cannot be read: check that the file exists and this user may read it")
        }
        let secret = String(decoding: data, as: UTF8.self)
        return secret.trimmingCharacters(in: .newlines)
    }
}

enum ConnectionStringRedaction {
    /// The password of a URL (`postgres://user:secret@host`) or keyword string, if any.
    static func password(in connectionString: String) -> String? {
        if let schemeEnd = connectionString.range(of: "://"),
            let at = connectionString[schemeEnd.upperBound...].lastIndex(of: "@"),
            let colon = connectionString[schemeEnd.upperBound..<at].firstIndex(of: ":")
        {
            return String(connectionString[connectionString.index(after: colon)..<at])
        }
        guard let range = connectionString.range(of: "password=", options: .caseInsensitive) else { return nil }
        let valueEnd = connectionString[range.upperBound...].firstIndex { $0 == " " || $0 == "&" } ?? connectionString.endIndex
        return String(connectionString[range.upperBound..<valueEnd])
    }
}
