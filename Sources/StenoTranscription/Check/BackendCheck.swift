import Foundation
import StenoCore
public import StenoInfrastructure

/// Tries a backend with one second of generated audio, so that an operator can test a base URL,
/// model and key before enqueueing work.
public struct BackendCheck: Sendable {
    public struct Report: Sendable {
        public var backend: String
        /// Without credentials.
        public var url: String
        public var model: String
        public var latency: Duration
        /// The text the backend made of the tone (often empty: it is not speech).
        public var text: String?
        public var segments: Int?
        /// The response format that worked: the configured one, or `json` chosen for the model or
        /// learned from the backend's refusal of `verbose_json`.
        public var responseFormat: String?
        public var failure: TranscriptionError?
        /// Whether the backend translates (`/v1/audio/translations`, for `steno enqueue
        /// --translate`): nil when not tried (the transcription failed), else nil failure for yes.
        public var translation: Translation?

        public var succeeded: Bool { failure == nil }
    }

    /// The same probe sent to the translations endpoint.
    public struct Translation: Sendable {
        /// The URL it went to, without credentials; nil when the backend's path has none.
        public var url: String?
        public var failure: TranscriptionError?

        public var available: Bool { failure == nil }
    }

    /// One second of a 440 Hz tone, 16 kHz mono WAV: every backend decodes WAV.
    public static let probeAudio = WAVFile.tone(duration: .seconds(1))

    public static func run(_ client: TranscriptionClient, cancellation: CancellationSignal = CancellationSignal()) async -> Report {
        let configuration = client.configuration
        let request = TranscriptionRequest(audio: probeAudio, format: .wav, duration: .seconds(1))
        let started = ContinuousClock.now
        var report = Report(
            backend: configuration.name, url: configuration.displayURL, model: configuration.model, latency: .zero)
        do {
            let result = try await client.transcribe(request, cancellation: cancellation)
            report.latency = result.latency
            report.text = result.transcription.text
            report.segments = result.transcription.segments.count
            report.responseFormat = result.responseFormat.rawValue
        } catch {
            report.latency = ContinuousClock.now - started
            report.failure = error
            return report
        }
        var translate = request
        translate.task = .translate
        var translation = Translation(url: configuration.translationURL.map(SecretRedactor.redactURLCredentials(in:)))
        do {
            _ = try await client.transcribe(translate, cancellation: cancellation)
        } catch {
            translation.failure = error
        }
        report.translation = translation
        return report
    }
}
