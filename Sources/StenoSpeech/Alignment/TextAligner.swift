public import StenoCore
import StenoInfrastructure
import Synchronization

/// Times for text that came without them: aligns a text with the audio it was heard from
/// (forced alignment) with pocketsphinx's English acoustic model, so that every word gets the
/// time it was said at.
///
/// Aligners are loaded on first use (0.1 to 0.2 s each; a process holding one decoder with the
/// model and dictionary peaked at 36 MB, measured with GNU time) and kept; at most `poolSize`
/// align at once, each on a thread of its own, and further callers wait their turn.
public final class TextAligner: Sendable {
    public static let sampleRate = PocketSphinxDecoder.sampleRate

    public let model: SpeechModel
    private let pool: ResourcePool<Aligner>

    /// Checks the model's files now, so that a missing package shows at start-up.
    public init(model: SpeechModel = .englishUS(), poolSize: Int = 1) throws(SpeechError) {
        precondition(poolSize > 0)
        try model.validate(forAlignment: true)
        self.model = model
        let made = Atomic<Int>(0)
        pool = ResourcePool(capacity: poolSize) {
            try await Aligner.load(model: model, index: made.add(1, ordering: .relaxed).newValue)
        }
    }

    /// The words of `text` with the times they were said at in `samples` (16 kHz mono PCM
    /// whose first sample is `start` seconds on the media's clock), or nil when the audio and
    /// the text disagree too much for the times to be trusted (`AlignedWords.leastHeardShare`).
    /// Words the aligner skipped are placed between their neighbours and marked `estimated`.
    public func align(_ text: String, samples: [Int16], start: Double) async throws(SpeechError) -> [TimedWord]? {
        let alignable = AlignmentText(text)
        let spoken = alignable.units
        guard !spoken.isEmpty, !samples.isEmpty else { return nil }
        let heard: [RecognizedWord]
        do {
            heard = try await pool.withResource { aligner in try await aligner.align(spoken, samples) }
        } catch let error as SpeechError {
            throw error
        } catch is ResourcePool<Aligner>.Closed {
            throw SpeechError(.shutDown, "the aligner is shutting down")
        } catch is CancellationError {
            throw SpeechError(.shutDown, "the alignment was cancelled")
        } catch {
            throw SpeechError(.recognitionFailed, "\(error)")
        }
        let duration = Double(samples.count) / Double(Self.sampleRate)
        let onTheMediaClock = heard.map { TimedWord(word: $0.word, start: start + $0.start, end: start + min($0.end, duration)) }
        return AlignedWords.timed(alignable, heard: onTheMediaClock, within: start...(start + duration))
    }

    /// Stops lending aligners; alignments in progress finish.
    public func shutdown() {
        _ = pool.close()
    }
}

/// One aligner on a thread of its own (`BlockingThread`): alignment blocks for a second or
/// more on a long chunk, and never runs on Swift's cooperative thread pool.
final class Aligner: @unchecked Sendable {
    // @unchecked: `aligner` is made and used only on `thread`.
    private let thread: BlockingThread
    private var aligner: PocketSphinxAligner?

    private init(thread: BlockingThread) {
        self.thread = thread
    }

    static func load(model: SpeechModel, index: Int) async throws(SpeechError) -> Aligner {
        let loaded = Aligner(thread: BlockingThread(name: "steno.alignment.\(index)"))
        let outcome: Result<Void, SpeechError> = await loaded.thread.run {
            Result { () throws(SpeechError) in loaded.aligner = try PocketSphinxAligner(model: model) }
        }
        try outcome.get()
        return loaded
    }

    func align(_ words: [SpokenUnit], _ samples: [Int16]) async throws(SpeechError) -> [RecognizedWord] {
        let outcome: Result<[RecognizedWord], SpeechError> = await thread.run {
            Result { () throws(SpeechError) -> [RecognizedWord] in
                guard let aligner = self.aligner else { throw SpeechError(.recognitionFailed, "the aligner has no model loaded") }
                return try samples.withUnsafeBufferPointer { buffer throws(SpeechError) in try aligner.align(words, buffer) }
            }
        }
        return try outcome.get()
    }
}
