import Foundation
import StenoLinearAlgebra

/// Runs `SegmentationModel` (pyannote segmentation-3.0) over 10 s windows of 16 kHz audio: for
/// each window, 589 frames of the 7 powerset classes' log-probabilities (who of up to three local
/// speakers talks in each frame, overlap included).
///
/// The windows of one call run together: SincNet window by window (its filters as one matrix
/// product over the window's strided samples), then the LSTM over all windows at once, laid out
/// time-major so that each step's recurrent product is one matrix product across windows; the
/// input projections of every frame of a layer are one product too. The arithmetic is
/// OpenBLAS's; this type lays out memory and applies norms, pools and gates.
///
/// Synchronous and CPU-bound: call it from a thread of the media queue or another thread of
/// one's own, never from the cooperative pool.
public struct SpeakerSegmenter: Sendable {
    let model: SegmentationModel

    public init(model: SegmentationModel) {
        self.model = model
    }

    /// Frames per 10 s window: SincNet's stride of 10 and three max-pools of 3.
    public static let framesPerWindow = 589

    /// Frames of a window of `samples` samples (589 for 10 s).
    public static func frames(samples: Int) -> Int {
        guard samples >= SegmentationModel.filterTaps else { return 0 }
        var length = (samples - SegmentationModel.filterTaps) / SegmentationModel.filterStride + 1
        length /= 3
        for _ in 0..<2 { length = max(0, length - 4) / 3 }
        return length
    }

    /// The fewest samples a window may have: enough for a few frames after SincNet's pools.
    public static let shortestWindow = 4_000
    /// The frames' step and length on the window's clock, as pyannote's receptive field gives
    /// them: frame f covers [f·step, f·step + duration) seconds of its window.
    public static let frameStep = 0.016875
    public static let frameDuration = 0.0619375

    static let instanceNormEpsilon: Float = 1e-5
    static let leak: Float = 0.01

    /// The log-probabilities of each window ([frames][7] each, row-major). The windows of one
    /// call are all of one length, at least `shortestWindow` samples: 10 s as the model was
    /// trained on, or a whole stretch of audio shorter than that.
    public func logProbabilities(of windows: [[Float]]) -> [[Float]] {
        guard let first = windows.first else { return [] }
        precondition(windows.allSatisfy { $0.count == first.count } && first.count >= Self.shortestWindow, "segmentation windows of one length")
        let frames = Self.frames(samples: first.count)
        let features = windows.map(sincNet)
        // Time-major: frame t of window w at row t·W + w.
        let count = windows.count
        var input = [Float](repeating: 0, count: frames * count * 60)
        for (window, feature) in features.enumerated() {
            for frame in 0..<frames {
                for channel in 0..<60 { input[(frame * count + window) * 60 + channel] = feature[channel * frames + frame] }
            }
        }
        var inputSize = 60
        for layer in model.layers {
            input = bidirectional(layer, input, inputSize: inputSize, steps: frames, batch: count)
            inputSize = 2 * SegmentationModel.hidden
        }
        let rows = frames * count
        for linear in model.linears {
            input = Self.affine(linear, input, rows: rows)
            for index in input.indices where input[index] < 0 { input[index] *= Self.leak }
        }
        let logits = Self.affine(model.classifier, input, rows: rows)
        let classes = SegmentationModel.classes
        var result = [[Float]](repeating: [Float](repeating: 0, count: frames * classes), count: count)
        for frame in 0..<frames {
            for window in 0..<count {
                let row = (frame * count + window) * classes
                let largest = (0..<classes).map { logits[row + $0] }.max()!
                var total: Float = 0
                for k in 0..<classes { total += expf(logits[row + k] - largest) }
                let logTotal = logf(total) + largest
                for k in 0..<classes { result[window][frame * classes + k] = logits[row + k] - logTotal }
            }
        }
        return result
    }

    /// SincNet over one window: [60][frames], channel-major.
    func sincNet(_ samples: [Float]) -> [Float] {
        // The waveform instance-normalised.
        let n = samples.count
        var mean: Double = 0
        for value in samples { mean += Double(value) }
        mean /= Double(n)
        var variance: Double = 0
        for value in samples { variance += (Double(value) - mean) * (Double(value) - mean) }
        variance /= Double(n)
        let scale = Float(1 / (variance + Double(Self.instanceNormEpsilon)).squareRoot()) * model.waveNorm.weight[0]
        let shift = model.waveNorm.bias[0] - Float(mean) * scale
        let wave = samples.map { $0 * scale + shift }

        // The sinc filters over strided samples: [251][positions] columns, one product.
        let taps = SegmentationModel.filterTaps
        let stride = SegmentationModel.filterStride
        let positions = (n - taps) / stride + 1
        var columns = [Float](repeating: 0, count: taps * positions)
        wave.withUnsafeBufferPointer { wave in
            columns.withUnsafeMutableBufferPointer { columns in
                for tap in 0..<taps {
                    let row = columns.baseAddress! + tap * positions
                    for position in 0..<positions { row[position] = wave[position * stride + tap] }
                }
            }
        }
        var filtered = [Float](repeating: 0, count: SegmentationModel.filterCount * positions)
        MatrixProduct.multiply(model.sinc.weights, by: columns, into: &filtered, rows: SegmentationModel.filterCount, columns: positions, inner: taps)
        for index in filtered.indices { filtered[index] = abs(filtered[index]) }
        var x = Self.pooled(filtered, channels: SegmentationModel.filterCount, length: positions)
        var length = positions / 3
        Self.instanceNorm(&x, model.norms[0], length: length)
        for (convolution, norm) in zip(model.convolutions, model.norms.dropFirst()) {
            let convolved = Self.convolve(convolution, x, length: length)
            length -= convolution.width - 1
            x = Self.pooled(convolved, channels: convolution.outputs, length: length)
            length /= 3
            Self.instanceNorm(&x, norm, length: length)
        }
        return x
    }

    /// One bidirectional LSTM layer over `input` ([steps][batch][inputSize]): [steps][batch][256],
    /// the forward direction's state first.
    private func bidirectional(_ layer: SegmentationModel.Layer, _ input: [Float], inputSize: Int, steps: Int, batch: Int) -> [Float] {
        let hidden = SegmentationModel.hidden
        var output = [Float](repeating: 0, count: steps * batch * 2 * hidden)
        for (index, direction) in [layer.forward, layer.backward].enumerated() {
            let gates = 4 * hidden
            var projected = [Float](repeating: 0, count: steps * batch * gates)
            MatrixProduct.multiply(input, byTransposed: direction.inputWeights, into: &projected, rows: steps * batch, columns: gates, inner: inputSize)
            var state = [Float](repeating: 0, count: batch * hidden)
            var cell = [Float](repeating: 0, count: batch * hidden)
            projected.withUnsafeMutableBufferPointer { projected in
                state.withUnsafeMutableBufferPointer { state in
                    cell.withUnsafeMutableBufferPointer { cell in
                        output.withUnsafeMutableBufferPointer { output in
                            for order in 0..<steps {
                                let step = index == 0 ? order : steps - 1 - order
                                let g = projected.baseAddress! + step * batch * gates
                                MatrixProduct.multiply(
                                    state.baseAddress!, byTransposed: direction.recurrentWeights, into: g,
                                    rows: batch, columns: gates, inner: hidden, accumulate: true)
                                for slot in 0..<batch {
                                    let row = g + slot * gates
                                    let h = state.baseAddress! + slot * hidden
                                    let c = cell.baseAddress! + slot * hidden
                                    let out = output.baseAddress! + (step * batch + slot) * 2 * hidden + index * hidden
                                    for unit in 0..<hidden {
                                        let inputGate = Self.sigmoid(row[unit] + direction.bias[unit])
                                        let forgetGate = Self.sigmoid(row[hidden + unit] + direction.bias[hidden + unit])
                                        let candidate = Self.tanh(row[2 * hidden + unit] + direction.bias[2 * hidden + unit])
                                        let outputGate = Self.sigmoid(row[3 * hidden + unit] + direction.bias[3 * hidden + unit])
                                        let newCell = forgetGate * c[unit] + inputGate * candidate
                                        c[unit] = newCell
                                        h[unit] = outputGate * Self.tanh(newCell)
                                        out[unit] = h[unit]
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return output
    }

    /// A valid (unpadded) 1-D convolution over [inputs][length]: [outputs][length - width + 1].
    private static func convolve(_ convolution: SegmentationModel.Convolution, _ x: [Float], length: Int) -> [Float] {
        let width = convolution.width
        let outLength = length - width + 1
        var columns = [Float](repeating: 0, count: convolution.inputs * width * outLength)
        for input in 0..<convolution.inputs {
            for tap in 0..<width {
                let row = (input * width + tap) * outLength
                let source = input * length + tap
                for time in 0..<outLength { columns[row + time] = x[source + time] }
            }
        }
        var out = [Float](repeating: 0, count: convolution.outputs * outLength)
        MatrixProduct.multiply(
            convolution.weights, by: columns, into: &out, rows: convolution.outputs, columns: outLength, inner: convolution.inputs * width)
        for output in 0..<convolution.outputs {
            for time in 0..<outLength { out[output * outLength + time] += convolution.bias[output] }
        }
        return out
    }

    /// `x` ([rows][inputs]) times the layer's weights transposed, plus its bias: [rows][outputs].
    private static func affine(_ layer: SegmentationModel.Convolution, _ x: [Float], rows: Int) -> [Float] {
        var out = [Float](repeating: 0, count: rows * layer.outputs)
        MatrixProduct.multiply(x, byTransposed: layer.weights, into: &out, rows: rows, columns: layer.outputs, inner: layer.inputs)
        for row in 0..<rows {
            for column in 0..<layer.outputs { out[row * layer.outputs + column] += layer.bias[column] }
        }
        return out
    }

    /// Max-pooling by 3 (stride 3, the remainder dropped) over [channels][length].
    private static func pooled(_ x: [Float], channels: Int, length: Int) -> [Float] {
        let pooledLength = length / 3
        var out = [Float](repeating: 0, count: channels * pooledLength)
        for channel in 0..<channels {
            let source = channel * length
            for index in 0..<pooledLength {
                let base = source + 3 * index
                out[channel * pooledLength + index] = max(x[base], x[base + 1], x[base + 2])
            }
        }
        return out
    }

    /// Instance norm (each channel over time, biased variance), affine, then leaky ReLU.
    private static func instanceNorm(_ x: inout [Float], _ norm: SegmentationModel.Norm, length: Int) {
        for channel in 0..<norm.weight.count {
            let base = channel * length
            var mean: Double = 0
            for time in 0..<length { mean += Double(x[base + time]) }
            mean /= Double(length)
            var variance: Double = 0
            for time in 0..<length {
                let deviation = Double(x[base + time]) - mean
                variance += deviation * deviation
            }
            variance /= Double(length)
            let scale = Float(1 / (variance + Double(instanceNormEpsilon)).squareRoot()) * norm.weight[channel]
            let shift = norm.bias[channel] - Float(mean) * scale
            for time in 0..<length {
                let value = x[base + time] * scale + shift
                x[base + time] = value < 0 ? value * leak : value
            }
        }
    }

    @inline(__always)
    private static func sigmoid(_ x: Float) -> Float { 1 / (1 + expf(-x)) }

    /// tanh through `expf`, as the speaker encoder did: within 1e-7 of glibc's `tanhf` and faster.
    @inline(__always)
    private static func tanh(_ x: Float) -> Float { 2 / (1 + expf(-2 * x)) - 1 }
}
