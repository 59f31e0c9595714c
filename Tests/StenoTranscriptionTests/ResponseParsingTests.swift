import Foundation
import Testing
@testable import StenoTranscription

/// Recorded answer shapes of the backends people use, read into one `Transcription`.
@Suite struct ResponseParsingTests {
    private func parse(_ json: String, format: TranscriptionResponseFormat = .verboseJSON, duration: Duration? = .seconds(10)) throws -> Transcription {
        try TranscriptionResponseParser.parse(Array(json.utf8), format: format, chunkDuration: duration)
    }

    @Test func openAIVerboseJSONWithTopLevelWords() throws {
        let body = """
            {"task":"transcribe","language":"english","duration":8.470000267028809,
             "text":"The beach was a popular spot on a hot summer day. People were swimming in the ocean.",
             "segments":[
              {"id":0,"seek":0,"start":0.0,"end":3.319999933242798,"text":" The beach was a popular spot on a hot summer day.",
               "tokens":[50364,440,7534,390,257,3743,4008,322,257,2368,4266,786,13,50530],"temperature":0.0,
               "avg_logprob":-0.2860786020755768,"compression_ratio":1.2363636493682861,"no_speech_prob":0.00985979475080967},
              {"id":1,"seek":0,"start":3.319999933242798,"end":8.470000267028809,"text":" People were swimming in the ocean.",
               "tokens":[50530,3432,645,11989,294,264,7810,13,50800],"temperature":0.0,
               "avg_logprob":-0.31,"compression_ratio":1.2363636493682861,"no_speech_prob":0.012}],
             "words":[{"word":"The","start":0.0,"end":0.24},{"word":"beach","start":0.24,"end":0.58},
                      {"word":"was","start":0.58,"end":0.8}],
             "usage":{"type":"duration","seconds":9}}
            """
        let transcription = try parse(body)
        #expect(transcription.text.hasPrefix("The beach was"))
        #expect(transcription.segments.count == 2)
        #expect(transcription.segments[0].text == "The beach was a popular spot on a hot summer day.")
        #expect(abs(transcription.segments[1].start - 3.32) < 0.001)
        #expect(abs(transcription.segments[1].end - 8.47) < 0.001)
        #expect(transcription.segments[0].averageLogProbability == -0.2860786020755768)
        #expect(transcription.segments[1].noSpeechProbability == 0.012)
        #expect(transcription.words.map(\.word) == ["The", "beach", "was"])
        #expect(transcription.words[1].start == 0.24)
        #expect(transcription.language == "english")
        #expect(transcription.usage == TranscriptionUsage(seconds: 9))
        #expect(transcription.timed)
    }

    @Test func gpt4oJSONWithTokenUsageYieldsOneSegmentForTheChunk() throws {
        let body = """
            {"text":"Welcome back to the show. Today we talk about tides.",
             "usage":{"type":"tokens","input_tokens":14,"input_token_details":{"text_tokens":0,"audio_tokens":14},
                      "output_tokens":45,"total_tokens":59}}
            """
        let transcription = try parse(body, format: .json, duration: .seconds(42))
        #expect(transcription.segments == [TranscriptionSegment(start: 0, end: 42, text: "Welcome back to the show. Today we talk about tides.")])
        #expect(transcription.words.isEmpty)
        #expect(!transcription.timed, "the one segment is Steno's, not the backend's: the worker aligns its text")
        #expect(transcription.usage == TranscriptionUsage(inputTokens: 14, outputTokens: 45, totalTokens: 59))
    }

    @Test func whisperCppServerWithWordsNestedInSegments() throws {
        let body = """
            {"task":"transcribe","language":"english","duration":11.0,
             "text":" And so my fellow Americans, ask not what your country can do for you",
             "segments":[{"id":0,"text":" And so my fellow Americans,","start":0.0,"end":3.2,
                "tokens":[50363,843,523,616,5891,7729,11],
                "words":[{"word":" And","start":0.0,"end":0.32,"t_dtw":-1,"probability":0.93},
                         {"word":" so","start":0.32,"end":0.6,"t_dtw":-1,"probability":0.98}],
                "temperature":0.0,"avg_logprob":-0.21,"no_speech_prob":0.01},
               {"id":1,"text":" ask not what your country can do for you","start":3.2,"end":7.6,
                "tokens":[1265,407,644,534,1499,460,466,329,345],
                "words":[{"word":" ask","start":3.2,"end":3.5,"t_dtw":-1,"probability":0.9}],
                "temperature":0.0,"avg_logprob":-0.3,"no_speech_prob":0.01}],
             "detected_language":"en","detected_language_probability":0.97}
            """
        let transcription = try parse(body)
        #expect(transcription.segments.map(\.text) == ["And so my fellow Americans,", "ask not what your country can do for you"])
        #expect(transcription.words.map(\.word) == [" And", " so", " ask"], "kept as written, leading spaces included")
        #expect(transcription.words[2].start == 3.2)
        #expect(transcription.words[0].probability == 0.93)
    }

    @Test func whisperCppErrorObjectInA2xxIsMalformedWithTheBackendsMessage() {
        #expect(throws: TranscriptionResponseParser.Failure.malformed(
            reason: "the JSON holds neither text nor segments", backendMessage: "failed to read audio data")) {
            try parse(#"{"error":"failed to read audio data"}"#)
        }
    }

    @Test func speachesWithNullWords() throws {
        let body = """
            {"task":"transcribe","language":"en","duration":4.5,"text":"Chapter one. The harbour at dawn.",
             "words":null,
             "segments":[{"id":1,"seek":0,"start":0.0,"end":1.4,"text":" Chapter one.","tokens":[50365,27275,472,13],
                          "temperature":0.0,"avg_logprob":-0.35,"compression_ratio":0.86,"no_speech_prob":0.02,"words":null},
                         {"id":2,"seek":0,"start":1.6,"end":4.2,"text":" The harbour at dawn.","tokens":[440,32797,412,18052,13],
                          "temperature":0.0,"avg_logprob":-0.4,"compression_ratio":0.86,"no_speech_prob":0.02,"words":null}]}
            """
        let transcription = try parse(body)
        #expect(transcription.segments.count == 2)
        #expect(transcription.segments[1].start == 1.6)
        #expect(transcription.words.isEmpty)
    }

    @Test func vllmVerboseJSONWithDurationAsStringAndNoWords() throws {
        let body = """
            {"duration":"5.02","language":"en","text":" The quick brown fox.",
             "segments":[{"id":0,"seek":0,"start":0.0,"end":5.02,"text":" The quick brown fox.","tokens":[440,1702,6292,21338,13],
                          "temperature":0.0,"avg_logprob":-0.12,"compression_ratio":0.7,"no_speech_prob":0.0}],
             "words":null}
            """
        let transcription = try parse(body)
        #expect(transcription.duration == 5.02)
        #expect(transcription.segments == [TranscriptionSegment(
            start: 0, end: 5.02, text: "The quick brown fox.", averageLogProbability: -0.12, compressionRatio: 0.7,
            noSpeechProbability: 0)])
    }

    @Test func vllmJSONWithDurationUsage() throws {
        let transcription = try parse(#"{"text":" The quick brown fox.","usage":{"type":"duration","seconds":5}}"#, format: .json, duration: .seconds(5))
        #expect(transcription.segments == [TranscriptionSegment(start: 0, end: 5, text: "The quick brown fox.")])
        #expect(transcription.usage?.seconds == 5)
    }

    @Test func localAISegmentsInNanoseconds() throws {
        let body = """
            {"segments":[{"id":0,"start":0,"end":2560000000,"text":" Hello and welcome.","tokens":[50364,2425,293,2928,13]},
                         {"id":1,"start":2560000000,"end":5120000000,"text":" This is episode four.","tokens":[639,307,3500,1451,13]}],
             "text":" Hello and welcome. This is episode four."}
            """
        let transcription = try parse(body)
        #expect(transcription.segments.map(\.start) == [0, 2.56])
        #expect(transcription.segments.map(\.end) == [2.56, 5.12])
        #expect(transcription.text == "Hello and welcome. This is episode four.")
    }

    @Test func plainTextFormat() throws {
        let transcription = try parse("Hello there.\n", format: .text, duration: .seconds(3))
        #expect(!transcription.timed)
        #expect(transcription.segments == [TranscriptionSegment(start: 0, end: 3, text: "Hello there.")])
    }

    @Test func silenceGivesNoSegments() throws {
        let transcription = try parse(#"{"text":"","segments":[]}"#)
        #expect(transcription.text.isEmpty)
        #expect(transcription.segments.isEmpty)
    }

    @Test func truncatedJSONIsMalformed() {
        #expect(throws: TranscriptionResponseParser.Failure.self) {
            try parse(#"{"text":"Hello","segments":[{"id":0,"start":0.0,"en"#)
        }
    }
}

@Suite struct BackendErrorBodyTests {
    @Test func htmlErrorPageBecomesItsText() {
        let page = """
            <!DOCTYPE HTML>
            <html lang="en">
                <head><meta charset="utf-8"><title>Error response</title></head>
                <body><h1>Error response</h1><p>Error code: 501</p><p>Message: Unsupported method ('POST').</p></body>
            </html>
            """
        #expect(BackendErrorBody(Array(page.utf8)).message == "Error response Error code: 501 Message: Unsupported method ('POST').")
    }

    @Test("every error body shape keeps its message: OpenAI's, a bare string, FastAPI's detail as string, list or object")
    func errorBodyShapes() {
        let cases: [(String, String)] = [
            (#"{"error":{"message":"Invalid file format.","type":"invalid_request_error","code":null}}"#, "Invalid file format."),
            (#"{"error":"failed to read audio"}"#, "failed to read audio"),
            (#"{"detail":"Model not found"}"#, "Model not found"),
            (#"{"detail":[{"loc":["body","response_format"],"msg":"value is not a valid enumeration member","type":"type_error.enum"}]}"#,
             "response_format: value is not a valid enumeration member"),
            (#"{"detail":{"error":{"message":"Unsupported model tiny","type":"invalid_request_error"}}}"#, "Unsupported model tiny"),
            (#"{"detail":{"message":"busy"}}"#, "busy"),
            (#"{"message":"quota"}"#, "quota"),
        ]
        for (body, message) in cases {
            #expect(BackendErrorBody(Array(body.utf8)).message == message, "\(body)")
        }
    }

    @Test func longMessagesAreShortenedToOneLine() {
        let message = BackendErrorBody(Array(("line one\nline two " + String(repeating: "x", count: 1000)).utf8)).message
        #expect(message?.count == BackendErrorBody.maximumMessageLength)
        #expect(message?.hasPrefix("line one line two x") == true)
        #expect(message?.hasSuffix("...") == true)
    }

    @Test func binaryBodyIsNoMessage() {
        #expect(BackendErrorBody([0xff, 0xfe, 0x00, 0x81]).message == nil)
    }
}
