import Foundation
public import Logging
public import StenoCore
import StenoInfrastructure

/// One recording opened for probing, decoding and encoding.
///
/// FFmpeg calls block, so every one runs on this file's own thread (`BlockingThread`), never on
/// Swift's cooperative pool nor on libdispatch's bounded one; the thread also keeps calls in
/// order. The demuxer stays open
/// between calls, so chunks of one chapter cost one open. Cancelling the calling task stops a
/// decode between two packets.
public final class MediaFile: @unchecked Sendable {
    // @unchecked: `reader` is touched only on `thread`.
    private let thread: BlockingThread
    private var reader: MediaReader?
    public let location: MediaLocation
    /// How long an http(s) source may take to connect or to send the next bytes.
    public let sourceTimeout: Duration
    let logger: Logger
    /// When long MP4 tracks are read from their sample tables; tests set it to cover short files.
    let sampleTables: SampleTableReading?

    /// How much short of the range asked for a decode may end, padded with silence: containers
    /// round their declared duration (AAC frames, MP3 Xing headers), and a book joined from AAC
    /// parts by stream copy declares each part's priming again (2.8 s over an hour of 60 parts,
    /// which the ffmpeg CLI decodes without a word). A quarter second plus 0.1 % of the declared
    /// duration: 3.85 s for an hour, 2.4 min for 40 hours. Anything shorter is `truncated`.
    public static func endTolerance(declared: MediaTime?) -> MediaTime {
        MediaTime(milliseconds: 250 + Int64((declared?.seconds ?? 0) * 1))
    }

    public static let defaultSourceTimeout = Duration.seconds(30)
    /// The variable that sets the source timeout for `steno probe` and the worker, and its range.
    public static let sourceTimeoutVariable = "STENO_SOURCE_TIMEOUT_SECONDS"
    public static let sourceTimeoutRange: ClosedRange<Double> = 1...3600

    public convenience init(_ location: MediaLocation, sourceTimeout: Duration = defaultSourceTimeout, logger: Logger = Logger(label: "steno.media")) {
        self.init(location, sourceTimeout: sourceTimeout, sampleTables: .automatic, logger: logger)
    }

    init(_ location: MediaLocation, sourceTimeout: Duration = defaultSourceTimeout, sampleTables: SampleTableReading?, logger: Logger = Logger(label: "steno.media")) {
        self.sampleTables = sampleTables
        self.location = location
        self.sourceTimeout = sourceTimeout
        var logger = logger
        logger[metadataKey: "media_source"] = "\(location)"
        self.logger = logger
        self.thread = BlockingThread(name: "steno.media.file")
    }

    /// Opens `location` and describes it; see `probe(verifyingEnd:)`.
    public static func probe(
        _ location: MediaLocation, sourceTimeout: Duration = defaultSourceTimeout, verifyingEnd: Bool = true,
        logger: Logger = Logger(label: "steno.media")
    ) async throws(MediaError) -> MediaInfo {
        try await MediaFile(location, sourceTimeout: sourceTimeout, logger: logger).probe(verifyingEnd: verifyingEnd)
    }

    /// Describes the recording from its headers. With `verifyingEnd` (the default) it also checks,
    /// with a few seeks and no decoding, that the audio reaches the declared end, and throws
    /// `truncated` naming where it really ends; without, it describes even a file cut short.
    public func probe(verifyingEnd: Bool = true) async throws(MediaError) -> MediaInfo {
        try await run { reader, _ throws(MediaError) in try reader.probe(verifyingEnd: verifyingEnd) }
    }

    /// Decodes `range` to 16 kHz mono s16 and returns it whole. Memory grows with the range
    /// (32 KB per second), never with the file; use the block form for long ranges.
    public func decode(_ range: Range<MediaTime>) async throws(MediaError) -> [Int16] {
        try await run { reader, cancelled throws(MediaError) in
            var samples: [Int16] = []
            samples.reserveCapacity(Int(max(0, Self.sampleCount(of: range))))
            _ = try self.decodeOnThread(range, cancelled: cancelled) { block throws(MediaError) in
                samples.append(contentsOf: block)
            }
            return samples
        }
    }

    /// Decodes `range` and hands the samples to `consumer` in blocks, on this file's thread;
    /// a block is valid only during the call. Memory stays bounded whatever the range.
    public func decode(
        _ range: Range<MediaTime>,
        blocks consumer: @escaping @Sendable (UnsafeBufferPointer<Int16>) throws(MediaError) -> Void
    ) async throws(MediaError) -> DecodeReport {
        try await run { reader, cancelled throws(MediaError) in
            try self.decodeOnThread(range, cancelled: cancelled, deliver: consumer)
        }
    }

    /// The loudness of `range`, one RMS value per `window` (50 ms by default): what the chunk
    /// planner reads to find pauses.
    public func energyProfile(_ range: Range<MediaTime>, window: MediaTime = MediaTime(milliseconds: 50)) async throws(MediaError) -> EnergyProfile {
        let windowSamples = try Self.energyWindowSamples(window)
        return try await analyze(range) { start, samples in
            EnergyProfileBuilder(start: start, sampleRate: MediaReader.outputRate, windowSamples: windowSamples, expectedSamples: samples)
        }
    }

    /// Decodes `range` once and runs the analysis `make` builds for it (given the range's first
    /// sample time and its expected sample count) over every block, on the media's thread.
    public func analyze<Analysis: AudioAnalysis>(
        _ range: Range<MediaTime>, _ make: @escaping @Sendable (_ start: MediaTime, _ expectedSamples: Int64) -> Analysis
    ) async throws(MediaError) -> Analysis.Output {
        try await run { reader, cancelled throws(MediaError) in
            let rangeStart = MediaTime(samples: range.lowerBound.sampleIndex(rate: MediaReader.outputRate), rate: MediaReader.outputRate)
            var analysis = make(rangeStart, Self.sampleCount(of: range))
            _ = try self.decodeOnThread(range, cancelled: cancelled) { block throws(MediaError) in
                analysis.append(block)
            }
            return analysis.finish()
        }
    }

    /// The samples in one energy window of `window`; at least one.
    public static func energyWindowSamples(_ window: MediaTime = MediaTime(milliseconds: 50)) throws(MediaError) -> Int {
        let samples = window.sampleIndex(rate: MediaReader.outputRate)
        guard samples > 0 else {
            throw MediaError(.invalidRange, "an energy window must hold at least one 16 kHz sample")
        }
        return Int(samples)
    }

    /// Decodes and encodes `range` into memory. Throws `encodedTooLarge` (with the sizes) when
    /// the encoding passes `sizeLimit`; `encodeSplittingIfTooLarge` splits instead. With a
    /// `speed` other than 1, the audio is played that much faster before it is encoded, its pitch
    /// kept (FFmpeg's atempo): 1.5 sends two thirds of the seconds.
    public func encode(_ range: Range<MediaTime>, format: ChunkFormat = .flac, sizeLimit: Int? = nil, speed: Double = 1) async throws(MediaError) -> EncodedChunk {
        try await encode(range, format: format, sizeLimit: sizeLimit, speed: speed) { _ in NoAnalysis() }.chunk
    }

    /// Encodes `range` as `encode` does and, from the same decode, runs the analysis `make`
    /// builds for it (given the range's first sample time) over the samples at their own speed.
    public func encode<Analysis: AudioAnalysis>(
        _ range: Range<MediaTime>, format: ChunkFormat = .flac, sizeLimit: Int? = nil, speed: Double = 1,
        analyzing make: @escaping @Sendable (_ start: MediaTime) -> Analysis
    ) async throws(MediaError) -> (chunk: EncodedChunk, analysis: Analysis.Output) {
        try await run { reader, cancelled throws(MediaError) in
            let encoder = try ChunkEncoder(
                format: format, limit: sizeLimit, expectedSamples: Int64(Double(Self.sampleCount(of: range)) / speed))
            let tempo = speed == 1 ? nil : try TempoFilter(tempo: speed)
            var analysis = make(MediaTime(samples: range.lowerBound.sampleIndex(rate: MediaReader.outputRate), rate: MediaReader.outputRate))
            _ = try self.decodeOnThread(range, cancelled: cancelled) { block throws(MediaError) in
                analysis.append(block)
                if let tempo {
                    try tempo.process(block) { faster throws(MediaError) in try encoder.append(faster) }
                } else {
                    try encoder.append(block)
                }
            }
            try tempo?.finish { faster throws(MediaError) in try encoder.append(faster) }
            let (data, samples) = try encoder.finish()
            self.logger.debug("encoded a chunk", metadata: [
                "start": "\(range.lowerBound)", "end": "\(range.upperBound)", "format": "\(format)", "bytes": "\(data.count)",
            ])
            return (EncodedChunk(range: range, format: format, data: data, samples: samples), analysis.finish())
        }
    }

    /// Runs one decode on the file's thread: seeks if it can, and starts again on a freshly opened
    /// input from the beginning when the seek fails or lands past the start.
    private func decodeOnThread(
        _ range: Range<MediaTime>, cancelled: CancellationSignal,
        deliver: @escaping RangeDecoder.Deliver
    ) throws(MediaError) -> DecodeReport {
        let reader = try liveReader()
        try validate(range, duration: reader.duration)
        let first = RangeDecoder(reader: reader, range: range, endTolerance: Self.endTolerance(declared: reader.duration), allowSeek: true, cancelled: cancelled, deliver: deliver)
        switch try first.run() {
        case .finished(let report):
            return report
        case .needsFreshReader:
            logger.debug("decoding from the beginning on a fresh input", metadata: ["start": "\(range.lowerBound)"])
            self.reader = nil
            let fresh = try liveReader()
            let second = RangeDecoder(reader: fresh, range: range, endTolerance: Self.endTolerance(declared: fresh.duration), allowSeek: false, cancelled: cancelled, deliver: deliver)
            guard case .finished(let report) = try second.run() else {
                throw MediaError(.corrupt, "the audio timestamps cannot be placed on the media's clock", source: location.description)
            }
            return report
        }
    }

    private func validate(_ range: Range<MediaTime>, duration: MediaTime?) throws(MediaError) {
        guard range.lowerBound >= .zero, !range.isEmpty else {
            throw MediaError(.invalidRange, "the range \(range.lowerBound)..<\(range.upperBound) s is empty or starts before 0", source: location.description)
        }
        if let duration, range.upperBound > duration {
            throw MediaError(.invalidRange, "the range ends at \(range.upperBound) s, after the end of the recording at \(duration) s", source: location.description)
        }
    }

    private func liveReader() throws(MediaError) -> MediaReader {
        if let reader { return reader }
        let opened = try MediaReader.open(location: location, sourceTimeout: sourceTimeout, sampleTables: sampleTables, logger: logger)
        reader = opened
        return opened
    }

    /// Closes the input; the next call opens it again.
    public func close() async {
        await thread.run { self.reader = nil }
    }

    private func run<Result: Sendable>(
        _ body: @escaping @Sendable (MediaReader, CancellationSignal) throws(MediaError) -> Result
    ) async throws(MediaError) -> Result {
        if Task.isCancelled {
            throw MediaError(.cancelled, "the calling task was cancelled before the media was read", source: location.description)
        }
        let cancelled = CancellationSignal()
        let outcome: Swift.Result<Result, MediaError> = await withTaskCancellationHandler {
            await thread.run { () -> Swift.Result<Result, MediaError> in
                do throws(MediaError) {
                    return .success(try body(try self.liveReader(), cancelled))
                } catch {
                    // A failed call may leave the demuxer mid-packet; the next call opens afresh.
                    if error.code != .encodedTooLarge && error.code != .invalidRange {
                        self.reader = nil
                    }
                    return .failure(error)
                }
            }
        } onCancel: {
            cancelled.cancel()
        }
        return try outcome.get()
    }

    /// How many output samples (16 kHz) `range` holds.
    private static func sampleCount(of range: Range<MediaTime>) -> Int64 {
        range.upperBound.sampleIndex(rate: MediaReader.outputRate) - range.lowerBound.sampleIndex(rate: MediaReader.outputRate)
    }
}
