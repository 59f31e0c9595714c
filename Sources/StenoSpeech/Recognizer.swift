import Dispatch

/// One pocketsphinx decoder on a serial queue of its own, so that recognition, which blocks for
/// seconds, never runs on Swift's cooperative thread pool.
final class Recognizer: @unchecked Sendable {
    // @unchecked: `decoder` is made and used only on `queue`.
    private let queue: DispatchQueue
    private var decoder: PocketSphinxDecoder?

    private init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Loads the model (about a second) on the recogniser's own queue.
    static func load(model: SpeechModel, index: Int) async throws(SpeechError) -> Recognizer {
        let recognizer = Recognizer(queue: DispatchQueue(label: "steno.speech.recognizer.\(index)"))
        try await recognizer.run { recognizer throws(SpeechError) in
            recognizer.decoder = try PocketSphinxDecoder(model: model)
        }
        return recognizer
    }

    /// Recognises one utterance; word times are relative to its first sample.
    func recognize(_ samples: ArraySlice<Int16>) async throws(SpeechError) -> [RecognizedWord] {
        try await run { recognizer throws(SpeechError) in
            guard let decoder = recognizer.decoder else {
                throw SpeechError(.recognitionFailed, "the recogniser has no model loaded")
            }
            return try samples.withUnsafeBufferPointer { buffer throws(SpeechError) in try decoder.recognize(buffer) }
        }
    }

    private func run<Result: Sendable>(
        _ body: @escaping @Sendable (Recognizer) throws(SpeechError) -> Result
    ) async throws(SpeechError) -> Result {
        let outcome: Swift.Result<Result, SpeechError> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: Swift.Result { () throws(SpeechError) -> Result in try body(self) })
            }
        }
        return try outcome.get()
    }
}
