import Foundation
import StenoLinearAlgebra

/// Runs `SpeakerEncoderModel` (CAM++) over pieces of speech: one L2-normalised 192-vector per
/// piece, each piece a sequence of its own (the statistics pooling and the CAM layers' context
/// read the whole piece, as the reference does on a batch of one).
///
/// Every convolution is one OpenBLAS `sgemm` over the piece's frames (the 2-D and widened ones
/// after an im2col copy); this type only lays out memory and applies the batch norms, ReLUs and
/// gates.
///
/// Synchronous and CPU-bound: call it from a thread of the media queue or another thread of
/// one's own, never from the cooperative pool.
public struct SpeakerEncoder: Sendable {
    let model: SpeakerEncoderModel
    private let filterBank = KaldiFilterBank()

    public init(model: SpeakerEncoderModel) {
        self.model = model
    }

    /// The shortest piece the encoder reads: the network halves the time axis once and needs
    /// two frames to take a standard deviation.
    public static let shortestSamples = KaldiFilterBank.windowLength + 3 * KaldiFilterBank.hop

    /// The L2-normalised embedding of each piece of 16 kHz mono speech (floats in -1...1), in
    /// order. A piece shorter than `shortestSamples` gets an empty embedding. The level of the
    /// audio does not matter: the features are log energies with their mean over the piece
    /// removed.
    public func embeddings(of pieces: [[Float]]) -> [[Float]] {
        var result = [[Float]](repeating: [], count: pieces.count)
        let readable = pieces.indices.filter { pieces[$0].count >= Self.shortestSamples }
        // Pieces run together, a batch at a time, until the batch holds `batchFrames` frames.
        var batch: [Int] = []
        var frames = 0
        func flush() {
            guard !batch.isEmpty else { return }
            for (index, embedding) in zip(batch, rawEmbeddings(of: batch.map { pieces[$0] })) {
                let norm = embedding.reduce(0) { $0 + $1 * $1 }.squareRoot()
                result[index] = norm > 0 ? embedding.map { $0 / norm } : embedding
            }
            batch = []
            frames = 0
        }
        for index in readable {
            batch.append(index)
            frames += KaldiFilterBank.frameCount(samples: pieces[index].count)
            if frames >= Self.batchFrames { flush() }
        }
        flush()
        return result
    }

    /// Frames of filter bank run through the network together: the matrix products then span
    /// several short pieces (every convolution is applied to each piece on its own, padded at its
    /// own edges). Measured on one core (`steno-bench speakers-speed`, 149 s of speech, best of
    /// four, alternating): 3.02 s at 250 frames, 2.93-2.97 s at 1000, once the 2-D convolutions
    /// copied one output frequency at a time (before that, 800 frames had been slower than 250:
    /// the widest layer's whole im2col copy outgrew the caches).
    static let batchFrames = 1000

    /// The network's features of `samples`: the filter bank, [frames][80], with its mean over
    /// the piece subtracted from each band.
    func features(of samples: [Float]) -> [Float] {
        var frames = samples.withUnsafeBufferPointer { filterBank.frames(of: $0) }
        let count = frames.count / KaldiFilterBank.bands
        guard count > 0 else { return [] }
        for band in 0..<KaldiFilterBank.bands {
            var sum: Float = 0
            for frame in 0..<count { sum += frames[frame * KaldiFilterBank.bands + band] }
            let mean = sum / Float(count)
            for frame in 0..<count { frames[frame * KaldiFilterBank.bands + band] -= mean }
        }
        return frames
    }

    /// The network's output for one piece, before normalisation: what 3D-Speaker's `CAMPPlus`
    /// returns.
    func rawEmbedding(of samples: [Float]) -> [Float] {
        rawEmbeddings(of: [samples])[0]
    }

    /// Where each piece's frames lie along the batch's time axis.
    struct Layout {
        var lengths: [Int]
        var offsets: [Int]
        var total: Int

        init(_ lengths: [Int]) {
            self.lengths = lengths
            var offsets: [Int] = []
            var total = 0
            for length in lengths {
                offsets.append(total)
                total += length
            }
            self.offsets = offsets
            self.total = total
        }

        /// Each piece's length after a convolution of `kernel`, `stride`, `dilation`, padded
        /// (kernel - 1)/2 · dilation at both ends.
        func convolved(kernel: Int, stride: Int, dilation: Int) -> Layout {
            let padding = (kernel - 1) / 2 * dilation
            return Layout(lengths.map { ($0 + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1 })
        }
    }

    /// The network's output for each piece, before normalisation. The pieces run as one batch:
    /// each layer's activations are [channels][Σ frames], the pieces side by side along time, and
    /// each convolution reads only its own piece's frames (zeros past its edges), so every piece
    /// gets what it would alone.
    func rawEmbeddings(of pieces: [[Float]]) -> [[Float]] {
        let featureSets = pieces.map(features(of:))
        var time = Layout(featureSets.map { $0.count / KaldiFilterBank.bands })
        var scratch: [Float] = []

        // FCM: [channels][frequencies][Σ times], the input one channel of 80 bands.
        var frequencies = KaldiFilterBank.bands
        var x = [Float](repeating: 0, count: frequencies * time.total)
        for (piece, features) in featureSets.enumerated() {
            let offset = time.offsets[piece]
            for frame in 0..<time.lengths[piece] {
                for band in 0..<frequencies { x[band * time.total + offset + frame] = features[frame * frequencies + band] }
            }
        }
        x = Self.convolve2D(x, frequencies: frequencies, time: time, model.frontConvolution, kernel: 3, stride: 1, scratch: &scratch)
        Self.rectify(&x)
        for block in model.frontBlocks {
            let reduced = (frequencies - 1) / block.stride + 1
            var out = Self.convolve2D(x, frequencies: frequencies, time: time, block.first, kernel: 3, stride: block.stride, scratch: &scratch)
            Self.rectify(&out)
            out = Self.convolve2D(out, frequencies: reduced, time: time, block.second, kernel: 3, stride: 1, scratch: &scratch)
            if let shortcut = block.shortcut {
                let skip = Self.convolve2D(x, frequencies: frequencies, time: time, shortcut, kernel: 1, stride: block.stride, scratch: &scratch)
                for index in out.indices { out[index] += skip[index] }
            } else {
                for index in out.indices { out[index] += x[index] }
            }
            Self.rectify(&out)
            x = out
            frequencies = reduced
        }
        x = Self.convolve2D(x, frequencies: frequencies, time: time, model.frontLast, kernel: 3, stride: 2, scratch: &scratch)
        Self.rectify(&x)
        // [32][10][Σ times] is [320][Σ times] as it lies in memory.

        x = Self.convolve1D(x, time: time, model.tdnn, kernel: 5, stride: 2, dilation: 1, scratch: &scratch)
        time = time.convolved(kernel: 5, stride: 2, dilation: 1)
        Self.rectify(&x)

        var channels = SpeakerEncoderModel.tdnnChannels
        for (block, transit) in zip(model.blocks, model.transits) {
            let total = channels + block.count * SpeakerEncoderModel.growth
            x.reserveCapacity(total * time.total)
            for layer in block {
                x.append(contentsOf: camLayer(layer, x, channels: channels, time: time, scratch: &scratch))
                channels += SpeakerEncoderModel.growth
            }
            Self.normalize(&x, transit.norm, length: time.total, rectifying: true)
            x = Self.convolve1D(x, time: time, transit.linear, kernel: 1, stride: 1, dilation: 1, scratch: &scratch)
            channels /= 2
        }
        Self.normalize(&x, model.outputNorm, length: time.total, rectifying: true)

        // Per piece, the mean and the (unbiased) standard deviation of each channel over its
        // frames: [2·channels][pieces].
        let count = pieces.count
        var statistics = [Float](repeating: 0, count: 2 * channels * count)
        for piece in 0..<count {
            let offset = time.offsets[piece]
            let length = time.lengths[piece]
            for channel in 0..<channels {
                let row = channel * time.total + offset
                var sum: Double = 0
                for frame in 0..<length { sum += Double(x[row + frame]) }
                let mean = sum / Double(length)
                var squares: Double = 0
                for frame in 0..<length {
                    let deviation = Double(x[row + frame]) - mean
                    squares += deviation * deviation
                }
                statistics[channel * count + piece] = Float(mean)
                statistics[(channels + channel) * count + piece] = Float(length > 1 ? (squares / Double(length - 1)).squareRoot() : 0.01)
            }
        }
        let dense = Self.product(model.dense, statistics, inner: 2 * channels, columns: count)
        return (0..<count).map { piece in (0..<SpeakerEncoderModel.embeddingSize).map { dense[$0 * count + piece] } }
    }

    /// One context-aware layer of a dense block: its 32 new channels for the first `channels`
    /// of `input` ([channels][Σ frames]).
    private func camLayer(
        _ layer: SpeakerEncoderModel.CAMLayer, _ input: [Float], channels: Int, time: Layout, scratch: inout [Float]
    ) -> [Float] {
        let total = time.total
        var normalized = [Float](unsafeUninitializedCapacity: channels * total) { buffer, initialized in
            input.withUnsafeBufferPointer { input in
                for channel in 0..<channels {
                    let scale = layer.inputNorm.scale[channel]
                    let shift = layer.inputNorm.shift[channel]
                    let row = channel * total
                    for index in row..<(row + total) { buffer[index] = max(0, input[index] * scale + shift) }
                }
            }
            initialized = channels * total
        }
        var hidden = Self.convolve1D(normalized, time: time, layer.bottleneck, kernel: 1, stride: 1, dilation: 1, scratch: &scratch)
        normalized = []
        Self.rectify(&hidden)
        var local = Self.convolve1D(hidden, time: time, layer.local, kernel: 3, stride: 1, dilation: layer.dilation, scratch: &scratch)
        // The context of each frame: its piece's mean plus the mean of its 100-frame segment of
        // the piece (the last segment as long as what is left).
        let segment = 100
        let segments = time.lengths.map { ($0 + segment - 1) / segment }
        var firstSegment: [Int] = []
        var allSegments = 0
        for count in segments {
            firstSegment.append(allSegments)
            allSegments += count
        }
        let b = SpeakerEncoderModel.bottleneck
        var context = [Float](repeating: 0, count: b * allSegments)
        for channel in 0..<b {
            for piece in time.lengths.indices {
                let row = channel * total + time.offsets[piece]
                let length = time.lengths[piece]
                let parts = (0..<segments[piece]).map { index in
                    hidden[(row + index * segment)..<(row + min(length, (index + 1) * segment))].reduce(0, +)
                }
                let mean = parts.reduce(0, +) / Float(length)
                for (index, part) in parts.enumerated() {
                    let lower = index * segment
                    context[channel * allSegments + firstSegment[piece] + index] = mean + part / Float(min(length, lower + segment) - lower)
                }
            }
        }
        var squeezed = Self.product(layer.context1, context, inner: b, columns: allSegments)
        Self.rectify(&squeezed)
        // One gate per channel and segment: the sigmoid once per segment, not once per frame.
        let gates = Self.product(layer.context2, squeezed, inner: b / 2, columns: allSegments).map { 1 / (1 + expf(-$0)) }
        local.withUnsafeMutableBufferPointer { local in
            for channel in 0..<SpeakerEncoderModel.growth {
                for piece in time.lengths.indices {
                    let row = channel * total + time.offsets[piece]
                    let length = time.lengths[piece]
                    for index in 0..<segments[piece] {
                        let gate = gates[channel * allSegments + firstSegment[piece] + index]
                        for frame in (index * segment)..<min(length, (index + 1) * segment) { local[row + frame] *= gate }
                    }
                }
            }
        }
        return local
    }

    /// A convolution over [inputs][frequencies][Σ times], `kernel`×`kernel` with `kernel`/2
    /// padding, stride `stride` on frequencies and 1 on times, each piece padded at its own
    /// edges: [outputs][reduced][Σ times].
    ///
    /// One product per output frequency, each from an im2col copy of that frequency's inputs
    /// alone ([inputs·kernel²][Σ times]): about 300 KB at 250 frames, which stays in the core's
    /// cache between the copy and the product, where the whole layer's copy (40 frequencies of
    /// it) went out to memory and back.
    static func convolve2D(
        _ x: [Float], frequencies: Int, time: Layout, _ convolution: SpeakerEncoderModel.Convolution, kernel: Int, stride: Int,
        scratch: inout [Float]
    ) -> [Float] {
        let padding = kernel / 2
        let times = time.total
        let reduced = (frequencies + 2 * padding - kernel) / stride + 1
        let rows = convolution.inputs * kernel * kernel
        if scratch.count < rows * times { scratch = [Float](repeating: 0, count: rows * times) }
        let outputs = convolution.outputs
        return [Float](unsafeUninitializedCapacity: outputs * reduced * times) { out, initialized in
            x.withUnsafeBufferPointer { x in
                scratch.withUnsafeMutableBufferPointer { columnsOut in
                    for f in 0..<reduced {
                        for input in 0..<convolution.inputs {
                            for kf in 0..<kernel {
                                let source = f * stride + kf - padding
                                for kt in 0..<kernel {
                                    let row = columnsOut.baseAddress! + ((input * kernel + kf) * kernel + kt) * times
                                    guard source >= 0, source < frequencies else {
                                        row.update(repeating: 0, count: times)
                                        continue
                                    }
                                    let shift = kt - padding
                                    let line = x.baseAddress! + (input * frequencies + source) * times
                                    for (offset, length) in zip(time.offsets, time.lengths) {
                                        let piece = row + offset
                                        let lower = max(0, -shift)
                                        let upper = min(length, length - shift)
                                        if lower > 0 { piece.update(repeating: 0, count: min(lower, length)) }
                                        if upper < length { (piece + max(upper, 0)).update(repeating: 0, count: length - max(upper, 0)) }
                                        if upper > lower { (piece + lower).update(from: line + offset + lower + shift, count: upper - lower) }
                                    }
                                }
                            }
                        }
                        convolution.weights.withUnsafeBufferPointer { weights in
                            MatrixProduct.multiply(
                                weights.baseAddress!, by: columnsOut.baseAddress!, into: out.baseAddress! + f * times,
                                rows: outputs, columns: times, inner: rows, cStride: reduced * times)
                        }
                    }
                }
            }
            let columns = reduced * times
            for output in 0..<outputs {
                let bias = convolution.bias[output]
                guard bias != 0 else { continue }
                for column in 0..<columns { out[output * columns + column] += bias }
            }
            initialized = outputs * columns
        }
    }

    /// A 1-D convolution over [inputs][Σ times] with (kernel - 1)/2 · dilation padding at each
    /// piece's edges: [outputs][Σ convolved times].
    static func convolve1D(
        _ x: [Float], time: Layout, _ convolution: SpeakerEncoderModel.Convolution, kernel: Int, stride: Int, dilation: Int,
        scratch: inout [Float]
    ) -> [Float] {
        guard kernel > 1 || stride > 1 else {
            return product(convolution, x, inner: convolution.inputs, columns: time.total)
        }
        let padding = (kernel - 1) / 2 * dilation
        let out = time.convolved(kernel: kernel, stride: stride, dilation: dilation)
        let rows = convolution.inputs * kernel
        if scratch.count < rows * out.total { scratch = [Float](repeating: 0, count: rows * out.total) }
        x.withUnsafeBufferPointer { x in
            scratch.withUnsafeMutableBufferPointer { columnsOut in
                for input in 0..<convolution.inputs {
                    let line = x.baseAddress! + input * time.total
                    for tap in 0..<kernel {
                        let row = columnsOut.baseAddress! + (input * kernel + tap) * out.total
                        let shift = tap * dilation - padding
                        for piece in time.lengths.indices {
                            let source = line + time.offsets[piece]
                            let length = time.lengths[piece]
                            let target = row + out.offsets[piece]
                            let produced = out.lengths[piece]
                            guard stride == 1 else {
                                for frame in 0..<produced {
                                    let at = frame * stride + shift
                                    target[frame] = at >= 0 && at < length ? source[at] : 0
                                }
                                continue
                            }
                            // Stride 1: one copy of the frames in reach, zeros at either edge.
                            let lower = min(produced, max(0, -shift))
                            let upper = max(lower, min(produced, length - shift))
                            if lower > 0 { target.update(repeating: 0, count: lower) }
                            if upper > lower { (target + lower).update(from: source + lower + shift, count: upper - lower) }
                            if upper < produced { (target + upper).update(repeating: 0, count: produced - upper) }
                        }
                    }
                }
            }
        }
        return product(convolution, scratch, inner: rows, columns: out.total)
    }

    /// `convolution`'s weights times `columns` ([inner][columns]), plus its bias.
    private static func product(_ convolution: SpeakerEncoderModel.Convolution, _ input: [Float], inner: Int, columns: Int) -> [Float] {
        // sgemm overwrites every element (its beta is 0): no zeros to write first.
        [Float](unsafeUninitializedCapacity: convolution.outputs * columns) { out, initialized in
            input.withUnsafeBufferPointer { input in
                MatrixProduct.multiply(
                    convolution.weights, by: input.baseAddress!, into: out.baseAddress!,
                    rows: convolution.outputs, columns: columns, inner: inner)
            }
            for output in 0..<convolution.outputs {
                let bias = convolution.bias[output]
                guard bias != 0 else { continue }
                for column in 0..<columns { out[output * columns + column] += bias }
            }
            initialized = convolution.outputs * columns
        }
    }

    /// A batch norm (and a ReLU) applied to [channels][length], channel by channel.
    private static func normalize(_ x: inout [Float], _ norm: SpeakerEncoderModel.ChannelAffine, length: Int, rectifying: Bool) {
        x.withUnsafeMutableBufferPointer { x in
            for channel in 0..<norm.scale.count {
                let scale = norm.scale[channel]
                let shift = norm.shift[channel]
                for index in (channel * length)..<((channel + 1) * length) {
                    let value = x[index] * scale + shift
                    x[index] = rectifying ? max(0, value) : value
                }
            }
        }
    }

    private static func rectify(_ x: inout [Float]) {
        x.withUnsafeMutableBufferPointer { x in
            for index in x.indices { x[index] = max(0, x[index]) }
        }
    }
}
