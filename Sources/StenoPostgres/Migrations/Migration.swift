public import Foundation
import StenoInfrastructure

/// One numbered SQL file from `migrations/`, such as `0001_schema.sql`.
public struct Migration: Sendable, Equatable {
    public var version: Int
    public var name: String
    public var sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// Earlier texts of a migration that were corrected in place, by version. A database that
    /// applied one of them is up to date; a migration is corrected in place only when its old
    /// text could never be applied somewhere (every other change is a new numbered file).
    /// 0001 created the roles with `CREATE ROLE` even when they existed, which an owner without
    /// CREATEROLE is refused; it now creates only the missing ones.
    static let correctedChecksums: [Int: Set<String>] = [1: ["c6ce00d173c95d56"]]

    /// Whether a database that recorded `checksum` for this migration applied this text or one
    /// it was corrected from.
    public func matches(appliedChecksum: String) -> Bool {
        appliedChecksum == checksum || Self.correctedChecksums[version]?.contains(appliedChecksum) == true
    }

    /// FNV-1a over the file's bytes: detects a file edited after it was applied.
    public var checksum: String {
        FNV1a.hex(sql)
    }

    /// Reads every `NNNN_name.sql` in `directory`, in version order.
    public static func load(from directory: URL) throws(PostgresError) -> [Migration] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            var isDirectory: ObjCBool = false
            let problem =
                !FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) ? "it does not exist"
                : !isDirectory.boolValue ? "it is not a directory" : "permission denied"
            throw PostgresError(.migrationFailed, "cannot read the migrations directory \(directory.path): \(problem)")
        }
        var migrations: [Migration] = []
        for fileName in names where fileName.hasSuffix(".sql") {
            let stem = fileName.dropLast(4)
            guard let underscore = stem.firstIndex(of: "_"), let version = Int(stem[..<underscore]), version > 0 else {
                throw PostgresError(.migrationFailed, "migration file \(fileName) must be named NNNN_description.sql")
            }
            let url = directory.appendingPathComponent(fileName)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw PostgresError(.migrationFailed, "cannot read migration file \(url.path)")
            }
            migrations.append(Migration(version: version, name: String(stem[stem.index(after: underscore)...]), sql: String(decoding: data, as: UTF8.self)))
        }
        migrations.sort { $0.version < $1.version }
        for (previous, next) in zip(migrations, migrations.dropFirst()) where previous.version == next.version {
            throw PostgresError(.migrationFailed, "two migration files have version \(next.version): \(previous.name) and \(next.name)")
        }
        if migrations.isEmpty {
            throw PostgresError(.migrationFailed, "no migration files (NNNN_name.sql) in \(directory.path)")
        }
        return migrations
    }

    /// The running executable's real path. Not `argv[0]`: a program started through `PATH`
    /// (`steno migrate` in a container) gets its bare name there, which says nothing of its folder.
    static func executableURL() -> URL {
        let procSelf = "/proc/self/exe"
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: procSelf) {
            return URL(fileURLWithPath: path)
        }
        if let url = Bundle.main.executableURL { return url.resolvingSymlinksInPath() }
        return URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
    }

    /// Where the SQL files are: `explicit`, then `STENO_MIGRATIONS_DIR`, then `./migrations`,
    /// then `share/steno/migrations` beside the executable's directory (how the container installs them).
    public static func locateDirectory(
        explicit: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(PostgresError) -> URL {
        var candidates: [String] = []
        if let explicit { candidates.append(explicit) }
        if let fromEnvironment = environment["STENO_MIGRATIONS_DIR"], !fromEnvironment.isEmpty {
            candidates.append(fromEnvironment)
        }
        if explicit == nil {
            candidates.append(FileManager.default.currentDirectoryPath + "/migrations")
            let executable = executableURL()
            candidates.append(executable.deletingLastPathComponent().deletingLastPathComponent().path + "/share/steno/migrations")
        }
        for candidate in candidates {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), isDirectory.boolValue {
                return URL(fileURLWithPath: candidate)
            }
        }
        throw PostgresError(
            .migrationFailed,
            "no migrations directory found; looked in \(candidates.joined(separator: ", "))",
            hint: "pass --migrations DIR or set STENO_MIGRATIONS_DIR to the repository's migrations folder")
    }
}
