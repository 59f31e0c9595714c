import Foundation
import StenoCore
import StenoMedia
import StenoObjectStore
import StenoPostgres
import StenoStore
import StenoTranscription

/// Any error a handler threw, reduced to what the job store records and what decides the next
/// step: its class, a plain message, the HTTP status and the backend's retry time.
struct JobFailure: Sendable {
    var failureClass: FailureClass
    var message: String
    var httpStatus: Int?
    var retryAt: Date?
    /// The backend that answered, for a configuration failure's pause.
    var backend: String?
    /// The backend could not be reached or did not answer: an outage, not this job's fault.
    var backendDown = false
    /// The backend did not answer in time: slow, or down when nothing else gets through.
    var backendSlow = false
    /// The object store holding the recording did not answer: the media waits for it.
    var storeDown = false

    init(_ error: any Error) {
        switch error {
        case let error as TranscriptionError:
            failureClass = error.failureClass
            message = error.backendMessage.map { "\(error.message): \($0)" } ?? error.message
            httpStatus = error.status
            retryAt = error.retryAt
            backend = error.backend
            backendDown = error.meansBackendDown
            backendSlow = error.meansBackendSlow
        case let error as MediaError:
            failureClass = error.failureClass
            // A network failure must name the recording's server, or it reads as the backend's.
            let fromTheSource = error.code == .network || error.code == .sourceRejected
            message = fromTheSource ? "\(error.reason) (source \(error.source ?? "unknown"))" : error.reason
        case let error as WorkerError:
            failureClass = error.failureClass
            message = error.message
        case let error as StoreError:
            failureClass = error.failureClass
            message = error.message
        case let error as PostgresError:
            failureClass = error.isTransient ? .transient : .internal
            message = error.explanation
        case let error as ObjectStoreError:
            // Credentials or a bucket the store refuses hold the fleet back like a backend's 401;
            // a store that is down is retried; a missing or changed object fails its media.
            failureClass = error.isConfiguration
                ? .configuration : error.isTransient ? .transient : [.noSuchObject, .changed].contains(error.code) ? .media : .permanent
            message = error.description
            if error.isConfiguration { backend = "the object store" }
            storeDown = error.isTransient
        case let error as ChunkPlannerError:
            failureClass = .permanent
            message = error.description
        default:
            // Foundation's and the standard library's texts mean nothing to a user reading
            // `steno status`; the runner logs the error itself.
            failureClass = .internal
            message = "an unexpected failure inside the worker (\(type(of: error))): the worker's log has the details"
        }
    }

    var storeFailure: JobStore.Failure {
        JobStore.Failure(failureClass, message, httpStatus: httpStatus)
    }
}
