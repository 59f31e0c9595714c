import CPocketSphinx
import Foundation
import StenoCore

/// Owns one pocketsphinx decoder and its configuration, freed in `deinit`.
///
/// Not thread-safe, and each call blocks for about a fifth of the audio's duration:
/// `RecognizerPool` gives every decoder a thread of its own and one request at a time.
final class PocketSphinxDecoder {
    private let decoder: OpaquePointer
    private let configuration: OpaquePointer

    /// pocketsphinx's default frame rate: ten-millisecond frames.
    static let framesPerSecond = 100.0
    static let sampleRate = 16_000

    init(model: SpeechModel) throws(SpeechError) {
        Self.silenceLoggingOnce
        // No -logfn: ps_init then swaps sphinxbase's process-wide log file and closes the old one
        // while a decoder loading on another thread may still write to it (a crash seen when the
        // pool loaded two at once). Logging is switched off once, for the process, instead.
        // A heavier language weight with wider beams than pocketsphinx's defaults: measured on the
        // fixture book, it recovers words the default search drops ("boats" for "about its") at
        // the same speed, while -lw 10 and above start to hallucinate.
        let arguments = [
            "-hmm", model.acousticModel, "-lm", model.languageModel, "-dict", model.dictionary,
            "-samprate", String(Self.sampleRate),
            "-lw", "8", "-beam", "1e-60", "-wbeam", "1e-48", "-pbeam", "1e-60",
            // Cepstral mean normalisation per utterance: the default "live" estimate carries over
            // from one request to the next, which made a recording's transcript depend on what
            // the decoder heard before it. Same accuracy on the fixture book.
            "-cmn", "batch",
        ]
        (decoder, configuration) = try Self.start(arguments, model: model)
    }

    /// A decoder and its configuration from command-line `arguments`; the caller frees both.
    static func start(_ arguments: [String], model: SpeechModel) throws(SpeechError) -> (decoder: OpaquePointer, configuration: OpaquePointer) {
        let argv = arguments.map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pointers = argv
        guard let configuration = cmd_ln_parse_r(nil, ps_args(), Int32(pointers.count), &pointers, 0) else {
            throw SpeechError(.modelUnavailable, "pocketsphinx rejected its configuration (model \(model.acousticModel))")
        }
        guard let decoder = ps_init(configuration) else {
            cmd_ln_free_r(configuration)
            throw SpeechError(
                .modelUnavailable,
                "pocketsphinx could not load the model from \(model.acousticModel); install pocketsphinx-en-us or point Steno at its folder (STENO_ASR_MODEL_DIR for steno-asr, STENO_ALIGNMENT_MODEL_DIR for steno-worker)")
        }
        return (decoder, configuration)
    }

    deinit {
        ps_free(decoder)
        cmd_ln_free_r(configuration)
    }

    /// Recognises one utterance of 16 kHz mono PCM; word times are relative to its first sample.
    func recognize(_ samples: UnsafeBufferPointer<Int16>) throws(SpeechError) -> [RecognizedWord] {
        guard !samples.isEmpty else { return [] }
        try Self.decodeUtterance(decoder, samples)
        return Self.words(of: decoder)
    }

    /// Runs `samples` through `decoder`'s current search as one utterance.
    static func decodeUtterance(_ decoder: OpaquePointer, _ samples: UnsafeBufferPointer<Int16>) throws(SpeechError) {
        guard let base = samples.baseAddress else { return }
        // Each recording is a stream of its own. Within a stream, pocketsphinx carries its noise
        // estimate from one utterance to the next (`-remove_noise`, on by default): the same
        // audio came back with other words after the decoder had heard another recording, so a
        // chunk's words depended on which request its decoder served before it. The estimate
        // is primed from the recording's own first second instead, heard once and thrown away:
        // the same for every request, and as good as a warm one (fixture book: WER 20 %, against
        // 22 % carried over and 25 % with noise removal off).
        try PocketSphinxCall.check(ps_start_stream(decoder), "ps_start_stream")
        try PocketSphinxCall.check(ps_start_utt(decoder), "ps_start_utt")
        try PocketSphinxCall.check(ps_process_raw(decoder, base, min(samples.count, Self.noisePrimingSamples), 0, 1), "ps_process_raw")
        try PocketSphinxCall.check(ps_end_utt(decoder), "ps_end_utt")
        try PocketSphinxCall.check(ps_start_utt(decoder), "ps_start_utt")
        do throws(SpeechError) {
            try PocketSphinxCall.check(ps_process_raw(decoder, base, samples.count, 0, 1), "ps_process_raw")
        } catch {
            _ = ps_end_utt(decoder)
            throw error
        }
        try PocketSphinxCall.check(ps_end_utt(decoder), "ps_end_utt")
    }

    /// The words of the decoder's last utterance, times relative to its first sample.
    static func words(of decoder: OpaquePointer) -> [RecognizedWord] {
        var words: [RecognizedWord] = []
        var segment = ps_seg_iter(decoder)
        while let current = segment {
            var startFrame: Int32 = 0
            var endFrame: Int32 = 0
            ps_seg_frames(current, &startFrame, &endFrame)
            if let raw = ps_seg_word(current), let word = Self.spokenWord(String(cString: raw)) {
                words.append(
                    RecognizedWord(
                        word: word,
                        start: Double(startFrame) / Self.framesPerSecond,
                        end: Double(endFrame + 1) / Self.framesPerSecond))
            }
            segment = ps_seg_next(current)
        }
        return words
    }

    /// The dictionary word without its pronunciation variant (`was(2)`); `nil` for silence,
    /// sentence marks and noise (`<sil>`, `<s>`, `[NOISE]`, `++UH++`).
    static func spokenWord(_ raw: String) -> String? {
        guard let first = raw.first, first != "<", first != "[", first != "+" else { return nil }
        if let variant = raw.firstIndex(of: "("), raw.hasSuffix(")") {
            return String(raw[..<variant])
        }
        return raw
    }

    /// The first second of a recording primes the noise estimate before it is decoded.
    static let noisePrimingSamples = sampleRate

    static let silenceLoggingOnce: Void = steno_sphinx_silence_logging()
}
