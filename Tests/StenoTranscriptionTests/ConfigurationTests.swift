import Foundation
import StenoCore
import Testing
@testable import StenoTranscription

/// Backends from `STENO_*` and `STENO_FALLBACK_*` variables.
@Suite struct ConfigurationTests {
    @Test func everyVariableIsRead() throws {
        let configuration = try #require(try TranscriptionBackendConfiguration.fromEnvironment([
            "STENO_BACKEND_URL": "https://api.groq.com/openai/", "STENO_BACKEND_NAME": "groq", "STENO_API_KEY": "gsk_abc123",
            "STENO_MODEL": "whisper-large-v3-turbo", "STENO_BACKEND_HEADERS": "X-Team: audio; X-Trace: on",
            "STENO_RESPONSE_FORMAT": "verbose_json", "STENO_TIMESTAMP_GRANULARITIES": "segment, word",
            "STENO_PRICE_PER_MINUTE": "0.000667", "STENO_CONNECT_TIMEOUT": "5", "STENO_REQUEST_TIMEOUT": "60",
            "STENO_ATTEMPT_TIMEOUT": "300", "STENO_STALL_TIMEOUT": "15", "STENO_MAX_RETRIES": "2",
            "STENO_RETRY_BASE": "0.5", "STENO_RETRY_CAP": "2",
        ]))
        #expect(configuration.name == "groq")
        #expect(configuration.endpointURL == "https://api.groq.com/openai/v1/audio/transcriptions")
        #expect(configuration.apiKey == APIKey("gsk_abc123", source: "STENO_API_KEY"))
        #expect(configuration.model == "whisper-large-v3-turbo")
        #expect(configuration.extraHeaders.map(\.name) == ["X-Team", "X-Trace"])
        #expect(configuration.extraHeaders.map(\.value) == ["audio", "on"])
        #expect(configuration.timestampGranularities == [.segment, .word])
        #expect(configuration.pricePerAudioMinute == 0.000667)
        #expect(configuration.limits == TranscriptionLimits(
            connect: .seconds(5), request: .seconds(60), attempt: .seconds(300), stall: .seconds(15)))
        #expect(configuration.retry.maximumRetries == 2)
        #expect(configuration.retry.backoff.base == .milliseconds(500))
        #expect(configuration.retry.backoff.cap == .seconds(2))
    }

    @Test func defaultsFollowTheDesign() throws {
        let configuration = try #require(try TranscriptionBackendConfiguration.fromEnvironment(["STENO_BACKEND_URL": "http://asr:8000"]))
        #expect(configuration.name == "primary")
        #expect(configuration.apiKey == nil)
        #expect(configuration.model == "whisper-1")
        #expect(configuration.responseFormat == .verboseJSON)
        #expect(configuration.limits == TranscriptionLimits(
            connect: .seconds(10), request: .seconds(120), attempt: .seconds(600), stall: .seconds(30)))
        #expect(configuration.retry.maximumRetries == 3)
        #expect(configuration.retry.backoff.base == .seconds(1))
        #expect(configuration.retry.backoff.cap == .seconds(4))
        #expect(configuration.endpointURL == "http://asr:8000/v1/audio/transcriptions")
    }

    @Test func keyFileWinsOverTheVariable() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("steno-key-\(UUID().uuidString)").path
        try "sk-from-file\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let configuration = try #require(try TranscriptionBackendConfiguration.fromEnvironment([
            "STENO_BACKEND_URL": "https://api.openai.com", "STENO_API_KEY": "sk-from-variable", "STENO_API_KEY_FILE": path,
        ]))
        #expect(configuration.apiKey == APIKey("sk-from-file", source: "STENO_API_KEY_FILE"))
    }

    @Test func whisperCppPathAndBaseURLEndingInV1() throws {
        let whisperCpp = try #require(try TranscriptionBackendConfiguration.fromEnvironment([
            "STENO_BACKEND_URL": "http://whisper:8080", "STENO_BACKEND_PATH": "/inference",
        ]))
        #expect(whisperCpp.endpointURL == "http://whisper:8080/inference")
        let openAI = try #require(try TranscriptionBackendConfiguration.fromEnvironment(["STENO_BACKEND_URL": "https://api.openai.com/v1"]))
        #expect(openAI.endpointURL == "https://api.openai.com/v1/audio/transcriptions")
    }

    @Test func fallbackUsesItsOwnPrefix() throws {
        let client = try FallbackTranscriptionClient.fromEnvironment([
            "STENO_BACKEND_URL": "http://asr:8000", "STENO_FALLBACK_BACKEND_URL": "https://api.openai.com",
            "STENO_FALLBACK_API_KEY": "sk-fallback", "STENO_FALLBACK_MODEL": "gpt-4o-mini-transcribe",
            "STENO_FALLBACK_RESPONSE_FORMAT": "json", "STENO_FALLBACK_AFTER": "3",
        ])
        #expect(client.primary.configuration.name == "primary")
        #expect(client.primary.configuration.apiKey == nil)
        let fallback = try #require(client.fallback?.configuration)
        #expect(fallback.name == "fallback")
        #expect(fallback.model == "gpt-4o-mini-transcribe")
        #expect(fallback.responseFormat == .json)
        #expect(fallback.apiKey == APIKey("sk-fallback", source: "STENO_FALLBACK_API_KEY"))
        #expect(client.fallbackAfter == 3)
    }

    @Test func missingOrInvalidSettingsAreConfigurationErrors() {
        #expect(throws: TranscriptionError.self) { try FallbackTranscriptionClient.fromEnvironment([:]) }
        for (name, value) in [
            ("STENO_BACKEND_URL", "ftp://files"), ("STENO_REQUEST_TIMEOUT", "soon"), ("STENO_RESPONSE_FORMAT", "srt"),
            ("STENO_TIMESTAMP_GRANULARITIES", "sentence"), ("STENO_BACKEND_HEADERS", "no colon here"),
        ] {
            var environment = ["STENO_BACKEND_URL": "http://asr:8000"]
            environment[name] = value
            #expect {
                try TranscriptionBackendConfiguration.fromEnvironment(environment)
            } throws: { error in
                let error = error as? TranscriptionError
                return error?.failureClass == .configuration && error?.message.contains(name) == true
            }
        }
    }

    @Test("every numeric variable out of range, not finite or not whole is refused with its name, never a trap", arguments: [
        "CONNECT_TIMEOUT", "REQUEST_TIMEOUT", "ATTEMPT_TIMEOUT", "STALL_TIMEOUT", "MAX_RETRIES", "RETRY_BASE", "RETRY_CAP",
        "PRICE_PER_MINUTE", "FALLBACK_AFTER",
    ])
    func numericVariablesHaveRanges(name: String) {
        for value in ["1e308", "inf", "nan", "-1", "99999999999999999999", "ten"] {
            #expect {
                _ = try FallbackTranscriptionClient.fromEnvironment(["STENO_BACKEND_URL": "http://127.0.0.1:9", "STENO_\(name)": value])
            } throws: { error in
                let error = error as? TranscriptionError
                return error?.failureClass == .configuration && error?.message.contains("STENO_\(name) must be") == true
            }
        }
        #expect(throws: Never.self) {
            _ = try FallbackTranscriptionClient.fromEnvironment(["STENO_BACKEND_URL": "http://127.0.0.1:9", "STENO_\(name)": "2"])
        }
    }
}
