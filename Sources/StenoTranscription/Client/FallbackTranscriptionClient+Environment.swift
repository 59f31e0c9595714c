public import Foundation
public import Logging
import StenoCore

extension FallbackTranscriptionClient {
    /// The primary backend from `STENO_*`, and the fallback from `STENO_FALLBACK_*` if its URL is set.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment, gate: (any TranscriptionRequestGate)? = nil,
        logger: Logger = Logger(label: "steno.transcription")
    ) throws(TranscriptionError) -> FallbackTranscriptionClient {
        guard let primary = try TranscriptionBackendConfiguration.fromEnvironment(environment) else {
            throw TranscriptionError(
                .invalidConfiguration, .configuration,
                "no transcription backend is configured; set STENO_BACKEND_URL (and STENO_API_KEY or STENO_API_KEY_FILE if it needs a key)")
        }
        let fallback = try TranscriptionBackendConfiguration.fromEnvironment(environment, prefix: "STENO_FALLBACK_", defaultName: "fallback")
        let after = try EnvironmentReader(environment: environment, prefix: "STENO_").number("FALLBACK_AFTER", in: EnvironmentRanges.fallbackAfter, whole: true).map { Int($0) } ?? defaultFallbackAfter
        return FallbackTranscriptionClient(
            primary: TranscriptionClient(configuration: primary, gate: gate, logger: logger),
            fallback: fallback.map { TranscriptionClient(configuration: $0, gate: gate, logger: logger) },
            fallbackAfter: after)
    }
}
