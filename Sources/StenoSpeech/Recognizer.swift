import StenoCore
import StenoInfrastructure

/// One pocketsphinx decoder on a thread of its own (`BlockingThread`), so that recognition, which
/// blocks for seconds, never runs on Swift's cooperative thread pool nor on libdispatch's.
final class Recognizer: @unchecked Sendable {
    // @unchecked: `decoder` is made and used only on `thread`.
    private let thread: BlockingThread
    private var decoder: PocketSphinxDecoder?

    private init(thread: BlockingThread) {
        self.thread = thread
    }

    /// Loads the model (about a second) on the recogniser's own thread.
    static func load(model: SpeechModel, index: Int) async throws(SpeechError) -> Recognizer {
        let recognizer = Recognizer(thread: BlockingThread(name: "steno.speech.recognizer.\(index)"))
        try await recognizer.run { recognizer throws(SpeechError) in
            recognizer.decoder = try PocketSphinxDecoder(model: model)
        }
        return recognizer
    }

    /// Recognises each window of `samples` as one utterance and returns the words with times
    /// relative to the first sample, each word ending no later than `samples` does.
    ///
    /// Shaped as one synchronous loop on the recogniser's thread rather than an `async` loop of
    /// one hop per window: Swift 6.3.1's optimiser crashed (signal 11, "While splitting
    /// coroutine") on the async loop with typed throws inside the pool's closure, so release
    /// builds failed. The loop checks for cancellation between windows, as before.
    func recognize(windows: [Range<Int>], of samples: [Int16], sampleRate: Int) async throws(SpeechError) -> [RecognizedWord] {
        let cancellation = CancellationSignal()
        let outcome: Result<[RecognizedWord], SpeechError> = await withTaskCancellationHandler {
            do throws(SpeechError) {
                return .success(
                    try await run { recognizer throws(SpeechError) in
                        try recognizer.recognizeNow(windows: windows, of: samples, sampleRate: sampleRate, cancellation: cancellation)
                    })
            } catch {
                return .failure(error)
            }
        } onCancel: {
            cancellation.cancel()
        }
        return try outcome.get()
    }

    /// Runs on `thread` only.
    private func recognizeNow(
        windows: [Range<Int>], of samples: [Int16], sampleRate: Int, cancellation: CancellationSignal
    ) throws(SpeechError) -> [RecognizedWord] {
        guard let decoder else { throw SpeechError(.recognitionFailed, "the recogniser has no model loaded") }
        let duration = Double(samples.count) / Double(sampleRate)
        var words: [RecognizedWord] = []
        for window in windows {
            if cancellation.isCancelled { throw SpeechError(.shutDown, "the request was cancelled") }
            let offset = Double(window.lowerBound) / Double(sampleRate)
            let recognized = try samples[window].withUnsafeBufferPointer { buffer throws(SpeechError) in
                try decoder.recognize(buffer)
            }
            for var word in recognized {
                word.start += offset
                word.end = min(word.end + offset, duration)
                words.append(word)
            }
        }
        return words
    }

    private func run<Result: Sendable>(
        _ body: @escaping @Sendable (Recognizer) throws(SpeechError) -> Result
    ) async throws(SpeechError) -> Result {
        let outcome: Swift.Result<Result, SpeechError> = await thread.run {
            Swift.Result { () throws(SpeechError) -> Result in try body(self) }
        }
        return try outcome.get()
    }
}
