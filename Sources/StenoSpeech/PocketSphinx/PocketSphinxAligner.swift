import CPocketSphinx
import Foundation
import StenoCore

/// Owns one pocketsphinx decoder set up to align a known text with its audio, freed in
/// `deinit`: the text becomes a grammar that accepts exactly its words in order, and the
/// decoder's best path through that grammar gives each word its frames.
///
/// The grammar bends where a backend's text and the audio disagree: any word may be skipped at
/// a small cost (a word written but not said), and the path may start late or end early in
/// the text at a larger one (a chunk cut in the middle of its first or last sentence). Silence
/// and the model's noise words may come between any two words.
///
/// Not thread-safe, and each call blocks for about a fiftieth of the audio's duration:
/// `TextAligner` gives every aligner a thread of its own and one request at a time.
final class PocketSphinxAligner {
    private let decoder: OpaquePointer
    private let configuration: OpaquePointer
    private let logMath: OpaquePointer

    /// The cost of leaving out one word, and of starting late or ending early in the text, as
    /// probabilities: small enough that a word that was said is aligned rather than skipped,
    /// large enough that the path stays inside the search's beams when words must be skipped.
    static let skipProbability = 1e-4
    static let jumpProbability = 1e-8
    /// The most words one skip leaves out; a longer stretch the audio lacks is left by a jump.
    static let longestSkip = 3

    init(model: SpeechModel) throws(SpeechError) {
        PocketSphinxDecoder.silenceLoggingOnce
        // Wide beams: the grammar holds one path, so the search stays small, and a narrow word
        // beam prunes the path through a stretch of text the audio does not match.
        let arguments = [
            "-hmm", model.acousticModel, "-dict", model.dictionary, "-samprate", String(PocketSphinxDecoder.sampleRate),
            "-beam", "1e-80", "-wbeam", "1e-80", "-pbeam", "1e-80", "-cmn", "batch",
            // Every frame is kept: pocketsphinx otherwise drops what its voice detector calls
            // silence before the search, and the frames it numbers words by no longer count
            // from the start of the audio.
            "-remove_silence", "no",
        ]
        (decoder, configuration) = try PocketSphinxDecoder.start(arguments, model: model)
        logMath = ps_get_logmath(decoder)
        for sound in Self.unwrittenSpeechWords {
            _ = ps_add_word(decoder, sound.word, sound.phones, 0)
        }
    }

    /// Words of one broad sound each (a vowel, a hiss, a hum, a stop), in the grammar only as
    /// the loop that passes over speech the text lacks. Their names start with "+", which
    /// `PocketSphinxDecoder.spokenWord` reads as noise.
    static let unwrittenSpeechWords = [("+ah+", "AH"), ("+s+", "S"), ("+n+", "N"), ("+t+", "T"), ("+iy+", "IY")].map { (word: $0.0, phones: $0.1) }
    static let unwrittenSpeechProbability = 1e-3

    deinit {
        ps_free(decoder)
        cmd_ln_free_r(configuration)
    }

    /// The units of `units` (words, and numbers with each of their readings, in order) that
    /// the decoder heard in one stretch of 16 kHz mono PCM, by name, with times relative to its
    /// first sample; empty when no path through the text fits the audio.
    func align(_ units: [SpokenUnit], _ samples: UnsafeBufferPointer<Int16>) throws(SpeechError) -> [RecognizedWord] {
        guard !samples.isEmpty else { return [] }
        let known = units.filter(knowsOrLearns).map(\.name)
        guard !known.isEmpty else { return [] }
        try useGrammar(of: known)
        try PocketSphinxDecoder.decodeUtterance(decoder, samples)
        var score: Int32 = 0
        // No hypothesis: the search never reached the text's end (or a jump to it) in time.
        guard ps_get_hyp(decoder, &score) != nil else { return [] }
        return PocketSphinxDecoder.words(of: decoder)
    }

    /// True when the dictionary has the unit or now has it: a word spelt out by letter rules,
    /// a number with each reading as one of its pronunciations ("#..." and "#...(2)", which
    /// the grammar's search follows as alternatives, `-fsgusealtpron`).
    private func knowsOrLearns(_ unit: SpokenUnit) -> Bool {
        if let phones = ps_lookup_word(decoder, unit.name) {
            free(phones)
            return true
        }
        let pronunciations = unit.readings.compactMap { reading -> String? in
            let phones = reading.compactMap(phones(of:))
            return phones.count == reading.count ? phones.joined(separator: " ") : nil
        }
        guard let first = pronunciations.first, ps_add_word(decoder, unit.name, first, 0) >= 0 else { return false }
        for (index, other) in pronunciations.dropFirst().enumerated() {
            _ = ps_add_word(decoder, "\(unit.name)(\(index + 2))", other, 0)
        }
        return true
    }

    /// A word's phones from the dictionary, else by letter rules.
    private func phones(of word: String) -> String? {
        if let phones = ps_lookup_word(decoder, word) {
            defer { free(phones) }
            return String(cString: phones)
        }
        return SpellingPronunciation.phones(word)
    }

    /// Makes the chain grammar of `words` the decoder's search.
    private func useGrammar(of words: [String]) throws(SpeechError) {
        let count = Int32(words.count)
        guard let grammar = fsg_model_init("align", logMath, 1.0, count + 1) else {
            throw SpeechError(.recognitionFailed, "pocketsphinx could not make a grammar of \(words.count) words")
        }
        // The search holds its own reference to the grammar.
        defer { fsg_model_free(grammar) }
        let skip = logmath_log(logMath, Self.skipProbability)
        let jump = logmath_log(logMath, Self.jumpProbability)
        for (state, word) in words.enumerated() {
            let from = Int32(state)
            fsg_model_trans_add(grammar, from, from + 1, 0, fsg_model_word_add(grammar, word))
            // Skips are written out, not chained: the search follows one empty transition at a
            // time, and closing the chains (every state to every later one) made a 500-word
            // chunk seven times slower to align.
            for skipped in 1...Int32(Self.longestSkip) where from + skipped <= count {
                _ = fsg_model_null_trans_add(grammar, from, from + skipped, skip * skipped)
            }
            if state > 0 {
                _ = fsg_model_null_trans_add(grammar, 0, from, jump)
                _ = fsg_model_null_trans_add(grammar, from, count, jump)
            }
        }
        // Speech the text lacks (words the backend left out) is passed over as a loop of broad
        // sounds; without it, the words after were stretched over that speech. A whole
        // sentence left out in the middle is still too long for it: the next sentence's words
        // are then laid over the missing one (TextAlignerTests).
        let passOver = logmath_log(logMath, Self.unwrittenSpeechProbability)
        let sounds = Self.unwrittenSpeechWords.map { fsg_model_word_add(grammar, $0.word) }
        for state in 0...count {
            for sound in sounds { fsg_model_trans_add(grammar, state, state, passOver, sound) }
        }
        steno_fsg_set_ends(grammar, 0, count)
        _ = fsg_model_add_silence(grammar, "<sil>", -1, 0.1)
        try PocketSphinxCall.check(ps_set_fsg(decoder, "align", grammar), "ps_set_fsg")
        try PocketSphinxCall.check(ps_set_search(decoder, "align"), "ps_set_search")
    }
}
