import StenoCore
import StenoTestSupport
import Testing
@testable import StenoTranscription

/// What reaches the backend: path, headers and multipart fields.
@Suite struct MultipartRequestTests {
    @Test func requestCarriesEveryFieldAndTheAudio() async throws {
        let server = try FaultServer(replies: [])
        var configuration = TestBackend.configuration(url: server.baseURL + "/v1/")
        configuration.timestampGranularities = [.segment, .word]
        configuration.extraHeaders = [("OpenAI-Organization", "org-steno")]
        let audio = Array("fLaC-not-really-but-bytes".utf8) + [0, 255, 13, 10]
        let request = TranscriptionRequest(
            audio: audio, format: .flac, duration: .seconds(90), language: "en", prompt: "…and that was the harbour.",
            temperature: 0.2)
        let result = try await TestBackend.client(configuration).transcribe(request)
        #expect(result.requests == 1)
        let recorded = try #require(server.requests.first)
        #expect(recorded.head.method == "POST")
        #expect(recorded.head.path == "/v1/audio/transcriptions")
        #expect(recorded.header("Authorization") == "Bearer \(TestBackend.apiKey)")
        #expect(recorded.header("OpenAI-Organization") == "org-steno")
        #expect(recorded.header("Expect") == nil)
        #expect(recorded.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(recorded.field("model") == "whisper-1")
        #expect(recorded.field("response_format") == "verbose_json")
        #expect(recorded.fields("timestamp_granularities[]") == ["segment", "word"])
        #expect(recorded.field("language") == "en")
        #expect(recorded.field("prompt") == "…and that was the harbour.")
        #expect(recorded.field("temperature") == "0.2")
        let file = try #require(recorded.parts.first { $0.name == "file" })
        #expect(file.fileName == "audio.flac")
        #expect(file.contentType == "audio/flac")
        #expect(file.body == audio)
    }

    @Test("a translation goes to the translations endpoint beside the path, without language or timestamp granularities")
    func translationRequest() async throws {
        let server = try FaultServer(replies: [])
        var configuration = TestBackend.configuration(url: server.baseURL + "/v1/")
        configuration.timestampGranularities = [.segment, .word]
        var request = TranscriptionRequest(audio: [1, 2, 3], format: .flac, language: "de", prompt: "Names.")
        request.task = .translate
        _ = try await TestBackend.client(configuration).transcribe(request)
        let recorded = try #require(server.requests.first)
        #expect(recorded.head.path == "/v1/audio/translations")
        #expect(recorded.field("language") == nil && recorded.fields("timestamp_granularities[]").isEmpty)
        #expect(recorded.field("prompt") == "Names." && recorded.field("response_format") == "verbose_json")

        configuration.translationPath = "/api/translate"
        _ = try await TestBackend.client(configuration).transcribe(request)
        #expect(server.requests.last?.head.path == "/v1/api/translate", "STENO_BACKEND_TRANSLATION_PATH wins, below the base URL")
    }

    @Test("a backend path with no translations beside it fails a translation at once, as a failure of the request, not of the backend")
    func translationWithoutEndpoint() async throws {
        let server = try FaultServer(replies: [])
        var configuration = TestBackend.configuration(url: server.baseURL)
        configuration.path = "/inference"
        var request = TranscriptionRequest(audio: [1, 2, 3], format: .flac)
        request.task = .translate
        await #expect {
            _ = try await TestBackend.client(configuration).transcribe(request)
        } throws: { error in
            let error = error as? TranscriptionError
            return error?.failureClass == .permanent && error?.message.contains("STENO_BACKEND_TRANSLATION_PATH") == true
        }
        #expect(server.requestCount == 0)
    }

    @Test("STENO_BACKEND_FIELDS adds form fields for servers that read other names, and replaces a field of the same name")
    func extraFieldsAreSent() async throws {
        let server = try FaultServer(replies: [])
        var configuration = try #require(try TranscriptionBackendConfiguration.fromEnvironment([
            "STENO_BACKEND_URL": server.baseURL, "STENO_BACKEND_FIELDS": "model_name=tiny.en; beam_size = 5\nmodel=Systran/faster-whisper-tiny.en",
        ]))
        configuration.retry.maximumRetries = 0
        _ = try await TestBackend.client(configuration).transcribe(TranscriptionRequest(audio: [1, 2, 3], format: .flac))
        let recorded = try #require(server.requests.first)
        #expect(recorded.field("model_name") == "tiny.en")
        #expect(recorded.field("beam_size") == "5")
        #expect(recorded.fields("model") == ["Systran/faster-whisper-tiny.en"], "the extra field replaces Steno's own")
        #expect(!configuration.description.contains("tiny.en"), "field values are not printed: \(configuration.description)")
        #expect {
            _ = try TranscriptionBackendConfiguration.fromEnvironment(["STENO_BACKEND_URL": server.baseURL, "STENO_BACKEND_FIELDS": "no equals sign"])
        } throws: { "\($0)".contains("STENO_BACKEND_FIELDS") }
    }

    @Test("models known to answer JSON only are asked for json, whatever the configured format")
    func jsonOnlyModelsAreAskedForJSON() async throws {
        let server = try FaultServer(replies: [], then: .json(200, #"{"text":"Hello."}"#))
        var configuration = TestBackend.configuration(url: server.baseURL)
        configuration.model = "gpt-4o-mini-transcribe"
        configuration.timestampGranularities = [.segment, .word]
        let client = TestBackend.client(configuration)
        let result = try await client.transcribe(TranscriptionRequest(audio: [1, 2, 3], format: .flac))
        let recorded = try #require(server.requests.first)
        #expect(recorded.field("response_format") == "json")
        #expect(recorded.fields("timestamp_granularities[]").isEmpty)
        #expect(result.responseFormat == .json)
        #expect(result.transcription.text == "Hello.")
    }

    @Test("a backend that refuses verbose_json with a 400 is asked for json at once, and from then on")
    func refusedFormatIsLearned() async throws {
        let refusal = FaultServer.Reply.openAIError(
            400, message: "response_format 'verbose_json' is not compatible with model 'gpt-x'. Use 'json' or 'text' instead.",
            type: "invalid_request_error", code: "unsupported_value")
        let server = try FaultServer(replies: [refusal], then: .json(200, #"{"text":"Learned."}"#))
        var configuration = TestBackend.configuration(url: server.baseURL)
        configuration.model = "some-new-model"
        let client = TestBackend.client(configuration)
        let first = try await client.transcribe(TranscriptionRequest(audio: [1], format: .flac))
        #expect(first.transcription.text == "Learned.")
        #expect(first.requests == 2)
        #expect(first.responseFormat == .json)
        _ = try await client.transcribe(TranscriptionRequest(audio: [2], format: .flac))
        #expect(server.requests.map { $0.field("response_format") } == ["verbose_json", "json", "json"])
        #expect(client.responseFormat == .json)
    }

    @Test("a request's own model replaces the configured one, with the format and the learning for that model")
    func requestModelOverridesTheConfiguredOne() async throws {
        let server = try FaultServer(replies: [], then: .json(200, #"{"text":"Hello."}"#))
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let own = try await client.transcribe(TranscriptionRequest(audio: [1], format: .flac, prompt: "Chalabi, KEDA.", model: "gpt-4o-transcribe"))
        let configured = try await client.transcribe(TranscriptionRequest(audio: [2], format: .flac))
        #expect(server.requests.map { $0.field("model") } == ["gpt-4o-transcribe", TestBackend.configuration(url: server.baseURL).model])
        #expect(server.requests.map { $0.field("response_format") } == ["json", "verbose_json"])
        #expect(server.requests.first?.field("prompt") == "Chalabi, KEDA.")
        #expect(own.model == "gpt-4o-transcribe" && own.responseFormat == .json)
        #expect(configured.responseFormat == .verboseJSON)
        #expect(client.responseFormat(for: "gpt-4o-transcribe") == .json && client.responseFormat == .verboseJSON)
    }

    @Test("a fallback backend is sent its own model, not the media's")
    func fallbackUsesItsOwnModel() async throws {
        let primary = try FaultServer(replies: [], then: .json(503, #"{"error":{"message":"overloaded"}}"#))
        let secondary = try FaultServer(replies: [], then: .json(200, #"{"text":"Fallback."}"#))
        var primaryConfiguration = TestBackend.configuration(url: primary.baseURL)
        primaryConfiguration.retry.maximumRetries = 0
        var secondaryConfiguration = TestBackend.configuration(url: secondary.baseURL)
        secondaryConfiguration.model = "tiny.en"
        let client = FallbackTranscriptionClient(
            primary: TestBackend.client(primaryConfiguration), fallback: TestBackend.client(secondaryConfiguration), fallbackAfter: 1)
        let result = try await client.transcribe(TranscriptionRequest(audio: [1], format: .flac, model: "whisper-large-v3"))
        #expect(primary.requests.first?.field("model") == "whisper-large-v3")
        #expect(secondary.requests.first?.field("model") == "tiny.en")
        #expect(result.usedFallback && result.model == "tiny.en")
    }

    @Test func jsonFormatSendsNoGranularitiesOrOptionalFields() async throws {
        let server = try FaultServer(replies: [])
        var configuration = TestBackend.configuration(url: server.baseURL, responseFormat: .json)
        configuration.model = "gpt-4o-mini-transcribe"
        configuration.timestampGranularities = [.word]
        configuration.apiKey = nil
        _ = try await TestBackend.client(configuration).transcribe(TranscriptionRequest(audio: [1, 2, 3], format: .ogg))
        let recorded = try #require(server.requests.first)
        #expect(recorded.header("Authorization") == nil)
        #expect(recorded.field("model") == "gpt-4o-mini-transcribe")
        #expect(recorded.field("response_format") == "json")
        #expect(recorded.fields("timestamp_granularities[]").isEmpty)
        #expect(recorded.field("language") == nil)
        #expect(recorded.field("prompt") == nil)
        #expect(recorded.parts.first { $0.name == "file" }?.fileName == "audio.ogg")
    }

    @Test func estimatedCostFollowsThePricePerMinute() async throws {
        let server = try FaultServer(replies: [], then: .json(200, #"{"text":"hi","usage":{"type":"duration","seconds":120}}"#))
        var configuration = TestBackend.configuration(url: server.baseURL, responseFormat: .json)
        configuration.pricePerAudioMinute = 0.006
        let result = try await TestBackend.client(configuration).transcribe(TestBackend.chunk)
        #expect(abs((result.estimatedCost ?? 0) - 0.012) < 1e-9)
    }
}
