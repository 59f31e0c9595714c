import Foundation
import Logging
import StenoCore
import StenoInfrastructure
import StenoTestSupport
import Synchronization
import Testing
@testable import StenoTranscription

/// Configurations with limits and backoffs short enough for tests, measured against in assertions.
enum TestBackend {
    static let apiKey = TestSecret.make("sk-steno-test")
    static let backoffBase = Duration.milliseconds(40)
    static let backoffCap = Duration.milliseconds(160)
    static let jitter = 0.2

    /// The request and stall limits of a test that does not wait for them: long enough that an
    /// answer delayed by a loaded machine never meets them. A test that waits for a limit on
    /// purpose (a server that hangs or stalls) sets a short one; it then passes by the server's
    /// doing, not by the machine's speed.
    static let generousLimit = Duration.seconds(60)

    static func configuration(
        url: String, name: String = "test", retries: Int = 3, request: Duration = generousLimit,
        attempt: Duration = .seconds(300), stall: Duration = generousLimit, longestRetryAfter: Duration = .seconds(3),
        responseFormat: TranscriptionResponseFormat = .verboseJSON
    ) -> TranscriptionBackendConfiguration {
        TranscriptionBackendConfiguration(
            name: name, baseURL: url, apiKey: APIKey(apiKey, source: "test"), model: "whisper-1",
            responseFormat: responseFormat,
            limits: TranscriptionLimits(
                connect: .seconds(10), request: request, attempt: attempt, stall: stall, longestRetryAfter: longestRetryAfter),
            retry: TranscriptionRetryPolicy(
                maximumRetries: retries, backoff: RetryBackoff(base: backoffBase, cap: backoffCap, jitter: jitter)))
    }

    /// A client whose waits go by `clock`: by default one that moves itself to the end of each
    /// wait at once, so retries do not wait and the waits asked for can be read back.
    static func client(
        clock: any MonotonicClock = ManualClock(advancingOnSleep: true), _ configuration: TranscriptionBackendConfiguration,
        logs: LogCapture? = nil
    ) -> TranscriptionClient {
        let logger = logs.map { capture in
            var logger = Logger(label: "test", factory: { _ in capture })
            logger.logLevel = .trace
            return logger
        } ?? Logger(label: "test")
        return TranscriptionClient(configuration: configuration, clock: clock, logger: logger)
    }

    /// The backoff the test configurations retry with.
    static let backoff = RetryBackoff(base: backoffBase, cap: backoffCap, jitter: jitter)

    /// Checks that `waits` are the backoff's, one per retry: each within what its jitter allows.
    static func expectBackoffWaits(_ waits: [Duration], retries: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(waits.count == retries, "one wait per retry", sourceLocation: sourceLocation)
        for (index, wait) in waits.enumerated() {
            #expect(backoff.range(afterAttempt: index + 1).contains(wait), "wait \(index + 1): \(wait)", sourceLocation: sourceLocation)
        }
    }

    static let chunkAudio = WAVFile.tone(duration: .milliseconds(250))
    static let chunk = TranscriptionRequest(audio: chunkAudio, format: .wav, duration: .milliseconds(250))

    /// The outcome of `body`, a transcription or the client's error.
    static func outcome<T>(_ body: () async throws -> T) async -> Result<T, TranscriptionError> {
        do {
            return .success(try await body())
        } catch let error as TranscriptionError {
            return .failure(error)
        } catch {
            Issue.record("the client threw something other than a TranscriptionError: \(error)")
            return .failure(TranscriptionError(.clientFailure, .internal, "\(error)"))
        }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }

    var success: Success? {
        if case .success(let value) = self { return value }
        return nil
    }
}
