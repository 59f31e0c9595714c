import Foundation
import StenoCore
import StenoMedia
import StenoTestSupport
import Testing

@testable import StenoSpeech

@Suite("SpeechRecognizer", .timeLimit(.minutes(5)))
struct SpeechRecognizerTests {
    static func bookSamples() async throws -> (FixtureBook, [Int16]) {
        let book = try FixtureBook.load()
        let media = MediaFile(.file(path: FixtureBook.file("book.m4b").path))
        let info = try await media.probe()
        let samples = try await media.decode(MediaTime.zero..<(try #require(info.duration)))
        await media.close()
        return (book, samples)
    }

    @Test("flite speech of a known text comes back with a word error rate under 35 %")
    func wordErrorRate() async throws {
        let (book, samples) = try await Self.bookSamples()
        let recognizer = try SpeechRecognizer(poolSize: 1, maximumWaiting: 4)
        try await recognizer.load()
        let transcript = try await recognizer.transcribe(samples)
        let wer = WordErrorRate(reference: book.text, hypothesis: transcript.text)
        print("steno-asr on the fixture book: \(wer)")
        #expect(wer.rate < 0.35, "\(wer): \(transcript.text)")
    }

    @Test("word times increase and lie inside the audio; segments hold their words")
    func wordTimes() async throws {
        let (_, samples) = try await Self.bookSamples()
        let recognizer = try SpeechRecognizer(poolSize: 1, maximumWaiting: 4, windowLength: .seconds(8))
        try await recognizer.load()
        let transcript = try await recognizer.transcribe(samples)
        let duration = Double(samples.count) / 16_000
        #expect(transcript.words.count > 40)
        for (previous, next) in zip(transcript.words, transcript.words.dropFirst()) {
            #expect(previous.end <= next.start + 0.000_001, "\(previous) then \(next)")
        }
        for word in transcript.words {
            #expect(word.start >= 0 && word.start < word.end && word.end <= duration)
        }
        for segment in transcript.segments {
            #expect(segment.start == segment.words.first?.start && segment.end == segment.words.last?.end)
        }
        #expect(recognizer.recognitionWindows(samples).count >= 3, "8-second windows over 29 s of speech")
    }

    @Test("the same audio gets the same words whatever the recogniser heard before it")
    func wordsDoNotDependOnEarlierRequests() async throws {
        let (_, samples) = try await Self.bookSamples()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("steno-recognizer-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sentence = "Palmer went on in the bacon factory for many years, and every morning he walked down the hill to the harbour "
            + "where the boats came in with their nets full of silver fish. The harbour master kept a ledger of every catch."
        let flite = try await ChildProcess.run("/usr/bin/flite", ["-voice", "slt", "-t", sentence, "-o", path])
        try #require(flite.status == 0, "flite: \(flite.standardError)")
        let media = MediaFile(.file(path: path))
        let speech = try await media.decode(MediaTime.zero..<(try #require(try await media.probe().duration)))
        await media.close()
        // Loud, steady noise: what a decoder that carries its noise estimate over keeps longest.
        var state: UInt64 = 7
        let noise = (0..<(15 * 16_000)).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int16(Int((state >> 33) % 12_000) - 6_000)
        }
        let recognizer = try SpeechRecognizer(poolSize: 1, maximumWaiting: 4)
        try await recognizer.load()
        let first = try await recognizer.transcribe(speech).words.map(\.word)
        _ = try await recognizer.transcribe(noise)
        let afterNoise = try await recognizer.transcribe(speech).words.map(\.word)
        _ = try await recognizer.transcribe(Array(samples.suffix(10 * 16_000)))
        let afterOtherSpeech = try await recognizer.transcribe(speech).words.map(\.word)
        #expect(!first.isEmpty)
        #expect(afterNoise == first, "after noise: \(afterNoise.joined(separator: " ")) vs \(first.joined(separator: " "))")
        #expect(afterOtherSpeech == first, "after other speech: \(afterOtherSpeech.joined(separator: " ")) vs \(first.joined(separator: " "))")
    }

    @Test("answers loading before the model is loaded, and overloaded when the line is full")
    func loadingAndOverload() async throws {
        let recognizer = try SpeechRecognizer(poolSize: 1, maximumWaiting: 0)
        let silence = [Int16](repeating: 0, count: 16_000)
        await #expect(throws: SpeechError.self) { _ = try await recognizer.transcribe(silence) }
        try await recognizer.load()
        let (_, samples) = try await Self.bookSamples()
        let busy = Task { try await recognizer.transcribe(samples) }
        try await poll(until: { recognizer.busyCount == 1 }, "the one recogniser transcribing the book")
        let error = await #expect(throws: SpeechError.self) { _ = try await recognizer.transcribe(silence) }
        #expect(error?.code == .overloaded)
        _ = try await busy.value
        #expect(try await recognizer.transcribe(silence).words.isEmpty, "silence has no words")
    }

    @Test("a missing model is reported with what to install")
    func missingModel() {
        let error = #expect(throws: SpeechError.self) {
            _ = try SpeechRecognizer(model: .englishUS(directory: "/nonexistent"), poolSize: 1, maximumWaiting: 1)
        }
        #expect(error?.code == .modelUnavailable)
        #expect(error?.message.contains("pocketsphinx-en-us") == true)
    }
}
