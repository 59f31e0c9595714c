import Foundation
import Logging
import NIOPosix
import ServiceLifecycle
import StenoCore
import StenoInfrastructure
import StenoObjectStore
import StenoStore

/// Removes the recordings in the upload directory that no media names any more (`UploadSweep`
/// decides which), a minute after the server starts and then every hour. `DELETE /v1/media`
/// removes its upload at once; this is for every other way a media goes or never comes.
///
/// The upload directory must belong to one Steno database: a server sweeping a directory that
/// another database's media also use would remove their recordings.
struct UploadSweeper: Service {
    let directory: String
    let store: AdminStore
    let metrics: APIMetrics
    let logger: Logger
    /// With an object store, each sweep also aborts the multipart uploads left unfinished there.
    var objects: ObjectStore?
    var rule = UploadSweep()
    var firstSweepAfter: Duration = .seconds(60)
    var interval: Duration = .seconds(3600)
    var clock: any MonotonicClock = .continuous

    /// What one sweep did.
    struct Outcome: Sendable, Equatable {
        var examined = 0
        var removed = 0
        var removedBytes: Int64 = 0
    }

    func run() async throws {
        var wait = firstSweepAfter
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            let pause = wait
            try? await cancelWhenGracefulShutdown { try await clock.sleep(for: pause) }
            guard !Task.isCancelled, !Task.isShuttingDownGracefully else { return }
            if let objects {
                do {
                    let aborted = try await objects.abortAbandonedUploads(now: clock.date)
                    if aborted > 0 { logger.info("aborted unfinished uploads in the object store", metadata: ["uploads": "\(aborted)"]) }
                } catch {
                    logger.warning("could not look for unfinished uploads in the object store; trying again in an hour", metadata: ["error": "\(error)"])
                }
            }
            do {
                _ = try await sweep(now: clock.date)
            } catch {
                logger.warning(
                    "could not sweep the upload directory; trying again in an hour",
                    metadata: ["directory": "\(directory)", "error": "\(error)"])
            }
            wait = interval
        }
    }

    /// One sweep: lists the directory, asks the database about the old files, removes the orphans.
    func sweep(now: Date) async throws -> Outcome {
        let directory = directory
        let files = try await NIOThreadPool.singleton.runIfActive { try Self.regularFiles(in: directory) }
        let candidates = rule.candidates(files, now: now)
        var outcome = Outcome(examined: candidates.count)
        guard !candidates.isEmpty else { return outcome }
        let named = try await store.namedSources(among: candidates.map { UploadSweep.path(of: $0, in: directory) })
        let orphans = rule.orphans(candidates, in: directory, named: named)
        guard !orphans.isEmpty else { return outcome }
        let removed = try await NIOThreadPool.singleton.runIfActive {
            orphans.filter { unlink(UploadSweep.path(of: $0, in: directory)) == 0 }
        }
        outcome.removed = removed.count
        outcome.removedBytes = removed.reduce(0) { $0 + $1.bytes }
        metrics.recordSweptUploads(files: outcome.removed, bytes: outcome.removedBytes)
        logger.info(
            "removed uploads no media names",
            metadata: [
                "directory": "\(directory)", "files": "\(outcome.removed)", "bytes": "\(outcome.removedBytes)",
                "examined": "\(outcome.examined)",
            ])
        return outcome
    }

    /// The directory's regular files (not links, not folders), with when each was last written.
    private static func regularFiles(in directory: String) throws -> [UploadSweep.File] {
        let manager = FileManager.default
        return try manager.contentsOfDirectory(atPath: directory).compactMap { name in
            guard let attributes = try? manager.attributesOfItem(atPath: directory + "/" + name),
                attributes[.type] as? FileAttributeType == .typeRegular,
                let modified = attributes[.modificationDate] as? Date
            else { return nil }
            return UploadSweep.File(name: name, modified: modified, bytes: (attributes[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }
}
