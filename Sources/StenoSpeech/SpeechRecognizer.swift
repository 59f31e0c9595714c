public import Logging
import StenoCore
import StenoInfrastructure
import Synchronization

/// Offline English speech recognition with a pool of pocketsphinx decoders.
///
/// Long recordings are cut at pauses into windows of about `windowLength`, which keeps
/// pocketsphinx's search small and its timing exact, and every window is recognised as one
/// utterance. At most `poolSize` recordings are recognised at once; up to `maximumWaiting` more
/// wait their turn, and callers beyond that get `overloaded` at once.
public final class SpeechRecognizer: Sendable {
    public static let sampleRate = PocketSphinxDecoder.sampleRate

    public let model: SpeechModel
    public let poolSize: Int
    private let pool: ResourcePool<Recognizer>
    private let planner: ChunkPlanner
    private let ready = Atomic<Bool>(false)
    private let logger: Logger

    public init(
        model: SpeechModel = .englishUS(), poolSize: Int, maximumWaiting: Int,
        windowLength: Duration = .seconds(20), logger: Logger = Logger(label: "steno.speech")
    ) throws(SpeechError) {
        precondition(poolSize > 0 && maximumWaiting >= 0)
        try model.validate()
        self.model = model
        self.poolSize = poolSize
        self.logger = logger
        let loaded = Atomic<Int>(0)
        self.pool = ResourcePool(capacity: poolSize, maximumWaiting: maximumWaiting) {
            try await Recognizer.load(model: model, index: loaded.add(1, ordering: .relaxed).newValue)
        }
        let seconds = Int64(windowLength.components.seconds)
        do {
            self.planner = try ChunkPlanner(
                configuration: .init(
                    targetDuration: MediaTime(seconds: seconds), maxDuration: MediaTime(seconds: seconds * 3 / 2),
                    maxUploadBytes: Int.max / 4, estimatedBytesPerSecond: 32_000,
                    searchWindow: MediaTime(seconds: max(1, seconds / 4)), overlap: .zero))
        } catch {
            throw SpeechError(.recognitionFailed, "invalid recognition window: \(error)")
        }
    }

    /// Loads every decoder; until it returns, `transcribe` answers `loading`.
    public func load() async throws {
        let started = ContinuousClock.now
        try await pool.prewarm()
        ready.store(true, ordering: .releasing)
        logger.info("speech model loaded", metadata: ["recognizers": "\(poolSize)", "seconds": "\((ContinuousClock.now - started).seconds)"])
    }

    public var isReady: Bool { ready.load(ordering: .acquiring) }

    /// Callers waiting for a recogniser right now.
    /// How many recognisers are transcribing now.
    public var busyCount: Int { pool.lentCount }
    public var waitingCount: Int { pool.waitingCount }

    /// Recognises 16 kHz mono PCM.
    public func transcribe(_ samples: [Int16]) async throws(SpeechError) -> SpeechTranscript {
        guard isReady else { throw SpeechError(.loading, "the speech model is still loading") }
        let duration = Double(samples.count) / Double(Self.sampleRate)
        let windows = recognitionWindows(samples)
        do {
            let words = try await pool.withResource { recognizer in
                try await recognizer.recognize(windows: windows, of: samples, sampleRate: Self.sampleRate)
            }
            return SpeechTranscript.grouping(words, duration: duration)
        } catch let error as SpeechError {
            throw error
        } catch is ResourcePool<Recognizer>.Exhausted {
            throw SpeechError(.overloaded, "all \(poolSize) recognisers are busy and the waiting line is full")
        } catch is ResourcePool<Recognizer>.Closed {
            throw SpeechError(.shutDown, "the recogniser is shutting down")
        } catch is CancellationError {
            throw SpeechError(.shutDown, "the request was cancelled")
        } catch {
            throw SpeechError(.recognitionFailed, "\(error)")
        }
    }

    /// Sample ranges cut at the quietest moments near every `windowLength`.
    func recognitionWindows(_ samples: [Int16]) -> [Range<Int>] {
        guard !samples.isEmpty else { return [] }
        var energy = EnergyProfileBuilder(start: .zero, sampleRate: Self.sampleRate, windowSamples: Self.sampleRate / 50)
        energy.append(samples)
        let end = MediaTime(samples: Int64(samples.count), rate: Self.sampleRate)
        return planner.plan(.zero..<end, energy: energy.finish()).map { chunk in
            Int(chunk.start.sampleIndex(rate: Self.sampleRate))..<Int(min(Int64(samples.count), chunk.end.sampleIndex(rate: Self.sampleRate)))
        }
    }

    /// Stops lending recognisers; requests in progress finish.
    public func shutdown() {
        _ = pool.close()
    }
}
