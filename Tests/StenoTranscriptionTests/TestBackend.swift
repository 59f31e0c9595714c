import Foundation
import Logging
import StenoCore
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

    static func configuration(
        url: String, name: String = "test", retries: Int = 3, request: Duration = .seconds(5),
        attempt: Duration = .seconds(20), stall: Duration = .milliseconds(400), longestRetryAfter: Duration = .seconds(3),
        responseFormat: TranscriptionResponseFormat = .verboseJSON
    ) -> TranscriptionBackendConfiguration {
        TranscriptionBackendConfiguration(
            name: name, baseURL: url, apiKey: APIKey(apiKey, source: "test"), model: "whisper-1",
            responseFormat: responseFormat,
            limits: TranscriptionLimits(
                connect: .seconds(2), request: request, attempt: attempt, stall: stall, longestRetryAfter: longestRetryAfter),
            retry: TranscriptionRetryPolicy(
                maximumRetries: retries, backoff: RetryBackoff(base: backoffBase, cap: backoffCap, jitter: jitter)))
    }

    static func client(_ configuration: TranscriptionBackendConfiguration, logs: LogCapture? = nil) -> TranscriptionClient {
        let logger = logs.map { capture in
            var logger = Logger(label: "test", factory: { _ in capture })
            logger.logLevel = .trace
            return logger
        } ?? Logger(label: "test")
        return TranscriptionClient(configuration: configuration, logger: logger)
    }

    /// The sum of the backoff waits before retries 1...n, without jitter.
    static func backoffTotal(retries: Int) -> Duration {
        var total = Duration.zero
        for retry in 0..<retries {
            total += min(backoffBase * (1 << retry), backoffCap)
        }
        return total
    }

    static let chunkAudio = WAVFile.tone(duration: .milliseconds(250))
    static let chunk = TranscriptionRequest(audio: chunkAudio, format: .wav, duration: .milliseconds(250))

    /// How long `body` took, with its outcome.
    static func timed<T>(_ body: () async throws -> T) async -> (Result<T, TranscriptionError>, Duration) {
        let start = ContinuousClock.now
        do {
            let value = try await body()
            return (.success(value), ContinuousClock.now - start)
        } catch let error as TranscriptionError {
            return (.failure(error), ContinuousClock.now - start)
        } catch {
            Issue.record("the client threw something other than a TranscriptionError: \(error)")
            return (.failure(TranscriptionError(.clientFailure, .internal, "\(error)")), ContinuousClock.now - start)
        }
    }

    /// Scheduling slack for upper bounds on two shared, busy cores.
    static let slack = Duration.milliseconds(1500)

    /// curl keeps its timers in whole milliseconds and may fire a fraction of one early: lower
    /// bounds on curl-measured timeouts allow for that per request.
    static let curlTimerGranularity = Duration.milliseconds(2)
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
