import Foundation
import StenoCore
import StenoMedia
import StenoTestSupport
import Testing

@testable import StenoSpeech

/// Real pocketsphinx with Debian's English model, on flite's speech of sentences placed at
/// known times with silence between them.
@Suite("TextAligner", .timeLimit(.minutes(5)))
struct TextAlignerTests {
    static let sentences = [
        "The farmers from Ashby March began taking their grain to Kingsford instead.",
        "Nobody in the valley had seen the puffins nesting on the northern cliffs.",
        "In 1918 the old mill closed, and the river ran quiet for twenty years.",
        "She wrote every evening by the window, until the light was gone.",
    ]
    /// Seconds of silence before each sentence.
    static let pauses = [1.5, 2.5, 0.8, 4.0]

    /// The recording, and the time each sentence starts and ends at in it (flite's own
    /// silence at a sentence's edges measured off).
    static func recording(
        _ sentences: [String] = sentences, pauses: [Double] = pauses
    ) async throws -> (samples: [Int16], sentences: [ClosedRange<Double>]) {
        var samples: [Int16] = []
        var spans: [ClosedRange<Double>] = []
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("steno-aligner-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (index, (sentence, pause)) in zip(sentences, pauses).enumerated() {
            let path = directory.appendingPathComponent("\(index).wav").path
            let flite = try await ChildProcess.run("/usr/bin/flite", ["-voice", "slt", "-t", sentence, "-o", path])
            try #require(flite.status == 0, "flite: \(flite.standardError)")
            let media = MediaFile(.file(path: path))
            let duration = try #require(try await media.probe().duration)
            let spoken = try await media.decode(MediaTime.zero..<duration)
            await media.close()
            samples += [Int16](repeating: 0, count: Int(pause * 16_000))
            let voiced = try #require(Self.voiced(spoken))
            let offset = Double(samples.count) / 16_000
            spans.append((offset + Double(voiced.lowerBound) / 16_000)...(offset + Double(voiced.upperBound) / 16_000))
            samples += spoken
        }
        samples += [Int16](repeating: 0, count: 16_000 * 3)
        return (samples, spans)
    }

    /// The first and last sample louder than a whisper.
    static func voiced(_ samples: [Int16]) -> Range<Int>? {
        guard let first = samples.firstIndex(where: { abs(Int($0)) > 600 }), let last = samples.lastIndex(where: { abs(Int($0)) > 600 }) else {
            return nil
        }
        return first..<(last + 1)
    }

    static func firstWords(_ words: [TimedWord]) -> [TimedWord] {
        var starts: [TimedWord] = []
        var previousEndedSentence = true
        for word in words {
            if previousEndedSentence { starts.append(word) }
            previousEndedSentence = word.word.last == "."
        }
        return starts
    }

    @Test("every sentence's first word starts, and its last word ends, within 0.3 s of its speech; the name it never heard of is timed too")
    func sentencesLandOnTheirSpeech() async throws {
        let (samples, spans) = try await Self.recording()
        let aligner = try TextAligner(poolSize: 1)
        let start = 600.0
        let words = try #require(try await aligner.align(Self.sentences.joined(separator: " "), samples: samples, start: start))
        #expect(words.map(\.word) == Self.sentences.joined(separator: " ").split(separator: " ").map(String.init))
        let firsts = Self.firstWords(words)
        let lasts = words.filter { $0.word.last == "." }
        try #require(firsts.count == spans.count && lasts.count == spans.count)
        for (index, span) in spans.enumerated() {
            #expect(abs(firsts[index].start - (start + span.lowerBound)) < 0.3, "sentence \(index): \(firsts[index]) against \(span)")
            #expect(abs(lasts[index].end - (start + span.upperBound)) < 0.3, "sentence \(index): \(lasts[index]) against \(span)")
        }
        let kingsford = try #require(words.first { $0.word == "Kingsford" })
        #expect(kingsford.start > start + spans[0].lowerBound && kingsford.end < start + spans[0].upperBound && !kingsford.estimated)
        for (previous, next) in zip(words, words.dropFirst()) {
            #expect(previous.start <= next.start, "\(previous) then \(next)")
        }
    }

    @Test("numbers are timed however the speaker reads them: flite says 1700 as \"one thousand seven hundred\", and a sentence that starts with a number starts on its speech")
    func numbersReadEitherWay() async throws {
        let sentences = [
            "The bakers worked through the night without a rest.",
            "9,000 loaves were sold in the square by noon.",
            "The family had come to the town in 1700, after the great flood.",
            "In 1700 the harbour was still a marsh.",
            "2,500 people lived there by the 21st of June.",
        ]
        let (samples, spans) = try await Self.recording(sentences, pauses: [1.0, 2.2, 1.4, 1.5, 2.0])
        let aligner = try TextAligner(poolSize: 1)
        let words = try #require(try await aligner.align(sentences.joined(separator: " "), samples: samples, start: 0))
        let firsts = Self.firstWords(words)
        try #require(firsts.count == spans.count)
        for (index, span) in spans.enumerated() {
            #expect(abs(firsts[index].start - span.lowerBound) < 0.3, "sentence \(index): \(firsts[index]) against \(span)")
        }
        // flite runs "in" into the number with no pause: the number's time starts where "in" ends.
        for (previous, number) in zip(words, words.dropFirst()) where number.word.hasPrefix("1700") {
            #expect(!number.estimated && number.start - previous.end < 0.15, "\(previous) then \(number)")
        }
        let ordinal = try #require(words.first { $0.word == "21st" })
        #expect(!ordinal.estimated, "\(ordinal)")
    }

    @Test("words the backend wrote but nobody said, words it left out and a sentence it made up at the end do not pull the others off their speech")
    func disagreementsStayLocal() async throws {
        let (samples, spans) = try await Self.recording()
        let aligner = try TextAligner(poolSize: 1)
        let text = [
            "The farmers from Ashby March began taking all their grain to Kingsford instead.",
            "Nobody in the valley had seen the puffins on the cliffs.",
            Self.sentences[2], Self.sentences[3], "Thank you for watching.",
        ].joined(separator: " ")
        let words = try #require(try await aligner.align(text, samples: samples, start: 0))
        let firsts = Self.firstWords(words)
        for (index, span) in spans.enumerated() {
            #expect(abs(firsts[index].start - span.lowerBound) < 0.3, "sentence \(index): \(firsts[index]) against \(span)")
        }
        // The made-up sentence stays next to the last one said, on no speech of its own.
        let madeUp = words.suffix(4)
        #expect(madeUp.allSatisfy { $0.start >= spans[3].upperBound - 0.3 && $0.end < spans[3].upperBound + 3 }, "\(Array(madeUp))")
    }

    @Test("text in a script the English model has no sounds for gives no times, and so does silence")
    func nothingToAlign() async throws {
        let aligner = try TextAligner(poolSize: 1)
        let silence = [Int16](repeating: 0, count: 16_000 * 5)
        #expect(try await aligner.align("你好世界", samples: silence, start: 0) == nil)
        #expect(try await aligner.align("a sentence nobody said in this quiet room", samples: silence, start: 0) == nil)
    }

    @Test("a missing model is reported at once with what to install")
    func missingModel() {
        let error = #expect(throws: SpeechError.self) { try TextAligner(model: .englishUS(directory: "/nonexistent")) }
        #expect(error?.code == .modelUnavailable)
        #expect(error?.description.contains("pocketsphinx-en-us") == true)
    }

    @Test("spelling rules give every letter word phones of the model's set", arguments: ["kingsford", "ashby", "zouch", "müller", "xylophone", "night"])
    func spellingPhones(word: String) throws {
        let phones = try #require(SpellingPronunciation.phones(word)).split(separator: " ").map(String.init)
        let known: Set<String> = SpellingPronunciation.vowels.union([
            "B", "CH", "D", "DH", "F", "G", "HH", "JH", "K", "L", "M", "N", "NG", "P", "R", "S", "SH", "T", "TH", "V", "W", "Y", "Z", "ZH",
        ])
        #expect(!phones.isEmpty && phones.allSatisfy(known.contains), "\(phones)")
    }
}
