import Foundation
import StenoCore
import Testing

@Suite("OpenAI response formats")
struct OpenAITranscriptionFormatTests {
    static let transcript = Transcript(
        mediaID: 7, title: "T", source: "/u/a.mp3", language: "en", durationSeconds: 3700.2,
        chapters: [
            .init(number: 1, title: nil, start: 0, end: 1800, state: .succeeded, text: nil, segments: [
                .init(start: 1, end: 2.5, text: " Hello there.", words: [.init(word: "Hello", start: 1, end: 1.6), .init(word: "there.", start: 1.7, end: 2.5)]),
                .init(start: 100, end: 104, text: "Thanks for watching!", flag: .knownHallucination),
            ]),
            .init(number: 2, title: nil, start: 1800, end: 3700, state: .succeeded, text: nil, segments: [
                .init(start: 3600, end: 3602, text: "Goodbye.")
            ]),
        ])

    @Test("json is the kept text with the duration used; flagged text is left out")
    func json() throws {
        let rendered = try OpenAITranscriptionFormat.json.render(Self.transcript, words: false)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(rendered.utf8)) as? [String: Any])
        #expect(object["text"] as? String == "Hello there. Goodbye.")
        let usage = object["usage"] as? [String: Any]
        #expect(usage?["seconds"] as? Int == 3701)
    }

    @Test("verbose_json has numbered segments and, when asked, words")
    func verbose() throws {
        let text = try OpenAITranscriptionFormat.verboseJSON.render(Self.transcript, words: true)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let segments = try #require(object["segments"] as? [[String: Any]])
        #expect(segments.map { $0["id"] as? Int } == [0, 1])
        #expect(segments.map { $0["start"] as? Double } == [1, 3600])
        #expect((object["words"] as? [Any])?.count == 2)
        // Spelled out, as OpenAI's own verbose_json has it.
        #expect(object["language"] as? String == "english")
        #expect(object["duration"] as? Double == 3700.2)
        #expect(object["task"] as? String == "transcribe")
        let withoutWords = try OpenAITranscriptionFormat.verboseJSON.render(Self.transcript, words: false)
        #expect(!withoutWords.contains("\"words\""))
        let translated = try OpenAITranscriptionFormat.verboseJSON.render(Self.transcript, words: false, translated: true)
        let translation = try #require(try JSONSerialization.jsonObject(with: Data(translated.utf8)) as? [String: Any])
        #expect(translation["task"] as? String == "translate")
    }

    @Test("text, srt and vtt carry what was said, without the flagged segment")
    func textFormats() throws {
        #expect(try OpenAITranscriptionFormat.text.render(Self.transcript, words: false) == "Hello there. Goodbye.\n")
        let srt = try OpenAITranscriptionFormat.srt.render(Self.transcript, words: false)
        #expect(srt.contains("01:00:00,000 --> ") && !srt.contains("Thanks for watching"))
        let vtt = try OpenAITranscriptionFormat.vtt.render(Self.transcript, words: false)
        #expect(vtt.hasPrefix("WEBVTT") && vtt.contains("Goodbye."))
    }
}
