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
        pieces.map { samples in
            guard samples.count >= Self.shortestSamples else { return [] }
            var embedding = rawEmbedding(of: samples)
            let norm = embedding.reduce(0) { $0 + $1 * $1 }.squareRoot()
            if norm > 0 { for index in embedding.indices { embedding[index] /= norm } }
            return embedding
        }
    }

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
        let features = features(of: samples)
        let times = features.count / KaldiFilterBank.bands
        var scratch: [Float] = []

        // FCM: [channels][frequencies][times], the input one channel of 80 bands.
        var frequencies = KaldiFilterBank.bands
        var x = [Float](repeating: 0, count: frequencies * times)
        for time in 0..<times {
            for band in 0..<frequencies { x[band * times + time] = features[time * frequencies + band] }
        }
        x = Self.convolve2D(x, frequencies: frequencies, times: times, model.frontConvolution, kernel: 3, stride: 1, scratch: &scratch)
        Self.rectify(&x)
        for block in model.frontBlocks {
            let reduced = (frequencies - 1) / block.stride + 1
            var out = Self.convolve2D(x, frequencies: frequencies, times: times, block.first, kernel: 3, stride: block.stride, scratch: &scratch)
            Self.rectify(&out)
            out = Self.convolve2D(out, frequencies: reduced, times: times, block.second, kernel: 3, stride: 1, scratch: &scratch)
            if let shortcut = block.shortcut {
                let skip = Self.convolve2D(x, frequencies: frequencies, times: times, shortcut, kernel: 1, stride: block.stride, scratch: &scratch)
                for index in out.indices { out[index] += skip[index] }
            } else {
                for index in out.indices { out[index] += x[index] }
            }
            Self.rectify(&out)
            x = out
            frequencies = reduced
        }
        x = Self.convolve2D(x, frequencies: frequencies, times: times, model.frontLast, kernel: 3, stride: 2, scratch: &scratch)
        Self.rectify(&x)
        frequencies = (frequencies - 1) / 2 + 1
        // [32][10][times] is [320][times] as it lies in memory.

        var length = (times + 2 * 2 - 5) / 2 + 1
        x = Self.convolve1D(x, times: times, model.tdnn, kernel: 5, stride: 2, dilation: 1, scratch: &scratch)
        Self.rectify(&x)

        var channels = SpeakerEncoderModel.tdnnChannels
        for (block, transit) in zip(model.blocks, model.transits) {
            let total = channels + block.count * SpeakerEncoderModel.growth
            x.reserveCapacity(total * length)
            for layer in block {
                x.append(contentsOf: camLayer(layer, x, channels: channels, length: length, scratch: &scratch))
                channels += SpeakerEncoderModel.growth
            }
            Self.normalize(&x, transit.norm, length: length, rectifying: true)
            x = Self.convolve1D(x, times: length, transit.linear, kernel: 1, stride: 1, dilation: 1, scratch: &scratch)
            channels /= 2
        }
        Self.normalize(&x, model.outputNorm, length: length, rectifying: true)

        // The mean and the (unbiased) standard deviation of each channel over time.
        var statistics = [Float](repeating: 0, count: 2 * channels)
        for channel in 0..<channels {
            var sum: Double = 0
            for time in 0..<length { sum += Double(x[channel * length + time]) }
            let mean = sum / Double(length)
            var squares: Double = 0
            for time in 0..<length {
                let deviation = Double(x[channel * length + time]) - mean
                squares += deviation * deviation
            }
            statistics[channel] = Float(mean)
            statistics[channels + channel] = Float(length > 1 ? (squares / Double(length - 1)).squareRoot() : 0.01)
        }
        length = 1
        return Self.convolve1D(statistics, times: 1, model.dense, kernel: 1, stride: 1, dilation: 1, scratch: &scratch)
    }

    /// One context-aware layer of a dense block: its 32 new channels for the first `channels`
    /// of `input` ([channels][length]).
    private func camLayer(
        _ layer: SpeakerEncoderModel.CAMLayer, _ input: [Float], channels: Int, length: Int, scratch: inout [Float]
    ) -> [Float] {
        var normalized = Array(input[0..<(channels * length)])
        Self.normalize(&normalized, layer.inputNorm, length: length, rectifying: true)
        var hidden = Self.convolve1D(normalized, times: length, layer.bottleneck, kernel: 1, stride: 1, dilation: 1, scratch: &scratch)
        Self.rectify(&hidden)
        var local = Self.convolve1D(
            hidden, times: length, layer.local, kernel: 3, stride: 1, dilation: layer.dilation, scratch: &scratch)
        // The context of each frame: the whole piece's mean plus the mean of its 100-frame
        // segment (the last segment as long as what is left).
        let segment = 100
        let segments = (length + segment - 1) / segment
        let b = SpeakerEncoderModel.bottleneck
        var context = [Float](repeating: 0, count: b * segments)
        for channel in 0..<b {
            let row = channel * length
            var total: Float = 0
            for time in 0..<length { total += hidden[row + time] }
            let mean = total / Float(length)
            for index in 0..<segments {
                let lower = index * segment
                let upper = min(length, lower + segment)
                var sum: Float = 0
                for time in lower..<upper { sum += hidden[row + time] }
                context[channel * segments + index] = mean + sum / Float(upper - lower)
            }
        }
        var squeezed = Self.convolve1D(context, times: segments, layer.context1, kernel: 1, stride: 1, dilation: 1, scratch: &scratch)
        Self.rectify(&squeezed)
        let gates = Self.convolve1D(squeezed, times: segments, layer.context2, kernel: 1, stride: 1, dilation: 1, scratch: &scratch)
        for channel in 0..<SpeakerEncoderModel.growth {
            for time in 0..<length {
                let gate = gates[channel * segments + time / segment]
                local[channel * length + time] *= 1 / (1 + expf(-gate))
            }
        }
        return local
    }

    /// A convolution over [inputs][frequencies][times], `kernel`×`kernel` with `kernel`/2
    /// padding, stride `stride` on frequencies and 1 on times: [outputs][reduced][times].
    static func convolve2D(
        _ x: [Float], frequencies: Int, times: Int, _ convolution: SpeakerEncoderModel.Convolution, kernel: Int, stride: Int,
        scratch: inout [Float]
    ) -> [Float] {
        let padding = kernel / 2
        let reduced = (frequencies + 2 * padding - kernel) / stride + 1
        let rows = convolution.inputs * kernel * kernel
        let columns = reduced * times
        if scratch.count < rows * columns { scratch = [Float](repeating: 0, count: rows * columns) }
        x.withUnsafeBufferPointer { x in
            scratch.withUnsafeMutableBufferPointer { columnsOut in
                for input in 0..<convolution.inputs {
                    for kf in 0..<kernel {
                        for kt in 0..<kernel {
                            let row = columnsOut.baseAddress! + ((input * kernel + kf) * kernel + kt) * columns
                            let shift = kt - padding
                            for f in 0..<reduced {
                                let target = row + f * times
                                let source = f * stride + kf - padding
                                guard source >= 0, source < frequencies else {
                                    target.update(repeating: 0, count: times)
                                    continue
                                }
                                let line = x.baseAddress! + (input * frequencies + source) * times
                                let lower = max(0, -shift)
                                let upper = min(times, times - shift)
                                if lower > 0 { target.update(repeating: 0, count: lower) }
                                if upper < times { (target + upper).update(repeating: 0, count: times - upper) }
                                if upper > lower { (target + lower).update(from: line + lower + shift, count: upper - lower) }
                            }
                        }
                    }
                }
            }
        }
        return product(convolution, scratch, inner: rows, columns: columns)
    }

    /// A 1-D convolution over [inputs][times] with (kernel - 1)/2 · dilation padding:
    /// [outputs][(times + 2·padding - dilation·(kernel - 1) - 1) / stride + 1].
    static func convolve1D(
        _ x: [Float], times: Int, _ convolution: SpeakerEncoderModel.Convolution, kernel: Int, stride: Int, dilation: Int,
        scratch: inout [Float]
    ) -> [Float] {
        guard kernel > 1 || stride > 1 else {
            return product(convolution, x, inner: convolution.inputs, columns: times)
        }
        let padding = (kernel - 1) / 2 * dilation
        let length = (times + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1
        let rows = convolution.inputs * kernel
        if scratch.count < rows * length { scratch = [Float](repeating: 0, count: rows * length) }
        x.withUnsafeBufferPointer { x in
            scratch.withUnsafeMutableBufferPointer { columnsOut in
                for input in 0..<convolution.inputs {
                    let line = x.baseAddress! + input * times
                    for tap in 0..<kernel {
                        let row = columnsOut.baseAddress! + (input * kernel + tap) * length
                        let offset = tap * dilation - padding
                        for time in 0..<length {
                            let source = time * stride + offset
                            row[time] = source >= 0 && source < times ? line[source] : 0
                        }
                    }
                }
            }
        }
        return product(convolution, scratch, inner: rows, columns: length)
    }

    /// `convolution`'s weights times `columns` ([inner][columns]), plus its bias.
    private static func product(_ convolution: SpeakerEncoderModel.Convolution, _ input: [Float], inner: Int, columns: Int) -> [Float] {
        var out = [Float](repeating: 0, count: convolution.outputs * columns)
        input.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { out in
                MatrixProduct.multiply(
                    convolution.weights, by: input.baseAddress!, into: out.baseAddress!,
                    rows: convolution.outputs, columns: columns, inner: inner)
                for output in 0..<convolution.outputs {
                    let bias = convolution.bias[output]
                    guard bias != 0 else { continue }
                    for column in 0..<columns { out[output * columns + column] += bias }
                }
            }
        }
        return out
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
