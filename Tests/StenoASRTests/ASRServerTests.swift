import Foundation
import StenoCore
import StenoInfrastructure
import StenoMedia
import StenoTestSupport
import StenoTranscription
import Testing

@testable import StenoASR

@Suite("steno-asr", .serialized, .timeLimit(.minutes(5)))
struct ASRServerTests {
    @Test("transcribes every chapter of the fixture book through the project's own client, WER under 35 %")
    func chaptersThroughClient() async throws {
        let book = try FixtureBook.load()
        try await RunningASRServer.with { server in
            let client = TranscriptionClient(
                configuration: TranscriptionBackendConfiguration(
                    name: "steno-asr", baseURL: server.baseURL, model: "pocketsphinx-en-us",
                    responseFormat: .verboseJSON, timestampGranularities: [.segment, .word]))
            let media = MediaFile(.file(path: FixtureBook.file("book.m4b").path))
            let info = try await media.probe()
            for (index, chapter) in info.chapters.enumerated() {
                let chunk = try await media.encode(chapter.start..<chapter.end, format: .flac)
                let result = try await client.transcribe(TranscriptionRequest(audio: Array(chunk.data), format: .flac))
                let transcription = result.transcription
                let wer = WordErrorRate(reference: book.chapters[index].text, hypothesis: transcription.text)
                print("steno-asr, chapter \(index + 1): \(wer)")
                #expect(wer.rate < 0.35, "chapter \(index + 1): \(wer): \(transcription.text)")

                let length = (chapter.end - chapter.start).seconds
                #expect(!transcription.words.isEmpty)
                for (previous, next) in zip(transcription.words, transcription.words.dropFirst()) {
                    #expect(previous.start <= next.start)
                }
                for word in transcription.words {
                    #expect(word.start >= 0 && word.end <= length + 0.001 && word.start < word.end)
                }
                #expect(transcription.segments.allSatisfy { $0.start < $0.end })
            }
            await media.close()
        }
    }

    @Test("answers json, text, srt and vtt, and lists its model and health")
    func formats() async throws {
        let speech = try Self.smallClip()
        try await RunningASRServer.with { server in
            let json = try await server.transcribe(file: speech, fields: ["model": "m", "response_format": "json"])
            #expect(json.status == 200)
            let object = try JSONSerialization.jsonObject(with: Data(json.body.utf8)) as? [String: Any]
            #expect((object?["text"] as? String)?.contains("lighthouse") == true)
            #expect((object?["usage"] as? [String: Any])?["type"] as? String == "duration")

            let text = try await server.transcribe(file: speech, fields: ["model": "m", "response_format": "text"])
            #expect(text.status == 200 && text.body.contains("lighthouse"))

            let srt = try await server.transcribe(file: speech, fields: ["model": "m", "response_format": "srt"])
            #expect(srt.status == 200)
            #expect(srt.body.hasPrefix("1\n00:00:0"))
            #expect(srt.body.range(of: #"\d\d:\d\d:\d\d,\d\d\d --> \d\d:\d\d:\d\d,\d\d\d"#, options: .regularExpression) != nil)

            let vtt = try await server.transcribe(file: speech, fields: ["model": "m", "response_format": "vtt"])
            #expect(vtt.status == 200)
            #expect(vtt.body.hasPrefix("WEBVTT\n\n"))
            #expect(vtt.body.range(of: #"\d\d:\d\d:\d\d\.\d\d\d --> \d\d:\d\d:\d\d\.\d\d\d"#, options: .regularExpression) != nil)

            let models = try await server.curl(["\(server.baseURL)/v1/models"])
            #expect(models.status == 200 && models.body.contains("pocketsphinx-en-us"))
            let health = try await server.curl(["\(server.baseURL)/healthz"])
            #expect(health.status == 200 && health.body.contains("\"ok\""))
        }
    }

    @Test("errors come back in OpenAI's shape with the right status")
    func errors() async throws {
        let notAudio = FixtureBook.file("not-audio.mp3").path
        try await RunningASRServer.with({ $0.maxUploadBytes = 100_000 }) { server in
            let missingFile = try await server.curl(["-F", "model=m", "\(server.baseURL)/v1/audio/transcriptions"])
            #expect(missingFile.status == 400)
            #expect(try Self.errorCode(missingFile) == "missing_field")

            let undecodable = try await server.transcribe(file: notAudio)
            #expect(undecodable.status == 400)
            #expect(try Self.errorCode(undecodable) == "invalid_file")

            let missingModel = try await server.transcribe(file: try Self.smallClip(), fields: [:])
            #expect(missingModel.status == 400)
            #expect(try Self.errorCode(missingModel) == "missing_field")

            let tooLarge = try await server.transcribe(file: FixtureBook.file("book.m4b").path)
            #expect(tooLarge.status == 413)
            #expect(try Self.errorCode(tooLarge) == "payload_too_large")

            let small = try Self.smallClip()
            let french = try await server.transcribe(file: small, fields: ["model": "m", "language": "fr"])
            #expect(french.status == 400)
            #expect(try Self.errorCode(french) == "unsupported_language")
            #expect(french.body.contains("English only"))

            let badFormat = try await server.transcribe(file: small, fields: ["model": "m", "response_format": "xml"])
            #expect(badFormat.status == 400)
        }
    }

    @Test("answers 503 with Retry-After while the model loads")
    func loading() async throws {
        try await RunningASRServer.with(loadModel: false) { server in
            let health = try await server.curl(["\(server.baseURL)/healthz"])
            #expect(health.status == 503 && health.body.contains("loading"))
            let answer = try await server.transcribe(file: try Self.smallClip())
            #expect(answer.status == 503)
            #expect(answer.headers.lowercased().contains("retry-after: 2"))
            #expect(try Self.errorCode(answer) == "model_loading")
        }
    }

    @Test("with an API key, requests need the bearer token")
    func bearerToken() async throws {
        try await RunningASRServer.with({ $0.apiKey = "s3cret-asr-key" }) { server in
            let clip = try Self.smallClip()
            let anonymous = try await server.transcribe(file: clip)
            #expect(anonymous.status == 401)
            #expect(!anonymous.body.contains("s3cret-asr-key"))
            let wrong = try await server.transcribe(file: clip, headers: ["Authorization: Bearer s3cret-asr-kez"])
            #expect(wrong.status == 401)
            let right = try await server.transcribe(file: clip, headers: ["Authorization: Bearer s3cret-asr-key"])
            #expect(right.status == 200)
        }
    }

    @Test("concurrent requests: a full line gets 503 with Retry-After, the rest are transcribed")
    func concurrency() async throws {
        let speech = FixtureBook.file("book.mp3").path
        try await RunningASRServer.with({
            $0.recognizers = 1
            $0.queueLength = 1
        }) { server in
            let statuses = try await withThrowingTaskGroup(of: RunningASRServer.Exchange.self) { group in
                for _ in 0..<4 {
                    group.addTask { try await server.transcribe(file: speech, fields: ["model": "m", "response_format": "text"]) }
                }
                return try await group.reduce(into: [RunningASRServer.Exchange]()) { $0.append($1) }
            }
            let succeeded = statuses.filter { $0.status == 200 }
            let refused = statuses.filter { $0.status == 503 }
            #expect(succeeded.count >= 2, "one recognising and one waiting always get through")
            #expect(refused.count >= 1, "four requests of seconds each, at once, overflow one recogniser and a line of one")
            #expect(succeeded.count + refused.count == 4)
            #expect(refused.allSatisfy { $0.headers.lowercased().contains("retry-after: 5") })
            #expect(succeeded.allSatisfy { $0.body.contains("keeper") })
        }
        let clip = try Self.smallClip()
        try await RunningASRServer.with({ $0.recognizers = 2 }) { server in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 {
                    group.addTask { try await server.transcribe(file: clip, fields: ["model": "m", "response_format": "text"]).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == [200, 200, 200, 200], "within the line, every request is served")
        }
    }

    static func errorCode(_ exchange: RunningASRServer.Exchange) throws -> String? {
        let object = try JSONSerialization.jsonObject(with: Data(exchange.body.utf8)) as? [String: Any]
        return (object?["error"] as? [String: Any])?["code"] as? String
    }

    /// Two seconds of the book as FLAC, small enough for every size limit in these tests.
    static func smallClip() throws -> String {
        let path = FixtureBook.file("clip-2s.flac").path
        guard FileManager.default.fileExists(atPath: path) else {
            throw TestEnvironmentError("\(path) is missing: run scripts/make-fixtures")
        }
        return path
    }
}
