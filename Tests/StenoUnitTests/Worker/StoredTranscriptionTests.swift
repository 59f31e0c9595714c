import StenoStore
import StenoTranscription
import Testing
@testable import StenoWorker
import StenoCore

@Suite("a chunk's answer on the media's clock")
struct StoredTranscriptionTests {
    @Test("times move to the media's clock and are clamped to the chunk's audio, never past its end or before its start")
    func timesAreClamped() {
        let transcription = Transcription(
            text: "Inside. Past the end.",
            segments: [
                TranscriptionSegment(start: 0.5, end: 4.0, text: " Inside."),
                TranscriptionSegment(start: 29.0, end: 41.9, text: " Past the end."),
            ],
            words: [
                TranscriptionWord(word: " Inside.", start: -0.3, end: 4.0),
                TranscriptionWord(word: " Past", start: 29.0, end: 30.0),
                TranscriptionWord(word: " the", start: 30.5, end: 31.0),
                TranscriptionWord(word: " end.", start: 31.0, end: 41.9),
            ])
        let result = TranscriptionResult(
            transcription: transcription, backend: "primary", model: "tiny.en", requests: 1, latency: .seconds(1), estimatedCost: nil)
        let stored = ChunkJobHandler.stored(result, chunk: Range(storedSeconds: 100, 120), encodedBytes: 10)
        #expect(stored.segments.map(\.start) == [100.5, 120])
        #expect(stored.segments.map(\.end) == [104, 120])
        #expect(stored.words.map(\.start) == [100, 120, 120, 120])
        #expect(stored.words.allSatisfy { $0.end >= $0.start && $0.end <= 120 })
        #expect(stored.words.map(\.word) == ["Inside.", "Past", "the", "end."])
    }
}
