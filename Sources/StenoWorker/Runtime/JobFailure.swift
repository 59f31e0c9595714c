import Foundation
import StenoCore
import StenoMedia
import StenoPostgres
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

    init(_ error: any Error) {
        switch error {
        case let error as TranscriptionError:
            failureClass = error.failureClass
            message = error.backendMessage.map { "\(error.message): \($0)" } ?? error.message
            httpStatus = error.status
            retryAt = error.retryAt
            backend = error.backend
        case let error as MediaError:
            failureClass = error.failureClass
            message = error.reason
        case let error as WorkerError:
            failureClass = error.failureClass
            message = error.message
        case let error as PostgresError:
            failureClass = error.isTransient ? .transient : .internal
            message = "database: \(error.message)"
        case let error as ChunkPlannerError:
            failureClass = .permanent
            message = error.description
        default:
            failureClass = .internal
            message = "\(error)"
        }
    }

    var storeFailure: JobStore.Failure {
        JobStore.Failure(failureClass, message, httpStatus: httpStatus)
    }
}
