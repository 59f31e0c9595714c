import Foundation
import StenoLinearAlgebra

/// Runs `SpeakerEncoderModel` over pieces of speech: one L2-normalised 256-vector per piece, the
/// LSTM run over all of the piece's frames as one sequence (as the reference's `forward` on a
/// batch of one).
///
/// Pieces are run together, the way torch runs a packed batch: sorted longest first and laid out
/// time-major, so that each step's recurrent product is one matrix product over the pieces still
/// running, and a piece that has ended keeps its final state. The input projection of every
/// frame of a layer is one product too. The arithmetic is OpenBLAS's, single-threaded; this
/// type only lays out memory and applies the gates.
///
/// Synchronous and CPU-bound: call it from a thread of the media queue or another thread of
/// one's own, never from the cooperative pool.
public struct SpeakerEncoder: Sendable {
    let model: SpeakerEncoderModel
    private let mel = MelSpectrogram()
    /// Pieces run together in one pass; more only add memory (frames × 4 KB).
    static let batchLimit = 48

    public init(model: SpeakerEncoderModel) {
        self.model = model
    }

    /// Resemblyzer's loudness target (`audio_norm_target_dBFS`): quieter speech is raised to it
    /// before its spectrum is taken, louder speech is left as it is.
    static let targetLoudness: Float = -30

    /// The embedding of each piece of 16 kHz mono speech, in order. With `normalizingVolume`,
    /// each piece is first raised to -30 dBFS as Resemblyzer's `preprocess_wav` does (never
    /// lowered). An empty piece gets an empty embedding.
    public func embeddings(of pieces: [[Float]], normalizingVolume: Bool = true) -> [[Float]] {
        var result = [[Float]](repeating: [], count: pieces.count)
        let order = pieces.indices.filter { !pieces[$0].isEmpty }
        for start in stride(from: 0, to: order.count, by: Self.batchLimit) {
            let batch = Array(order[start..<min(order.count, start + Self.batchLimit)])
            let features = batch.map { index in
                var samples = pieces[index]
                if normalizingVolume { Self.raiseToTarget(&samples) }
                var frames: [Float] = []
                samples.withUnsafeBufferPointer { mel.frames(of: $0, into: &frames) }
                return frames
            }
            for (index, embedding) in zip(batch, embeddings(ofMelFrames: features)) { result[index] = embedding }
        }
        return result
    }

    /// The mel frames of `samples`, [frames][40], as the reference computes them (for checks).
    func melFrames(of samples: [Float]) -> [Float] {
        var frames: [Float] = []
        samples.withUnsafeBufferPointer { mel.frames(of: $0, into: &frames) }
        return frames
    }

    static func raiseToTarget(_ samples: inout [Float]) {
        let meanSquare = samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count))
        guard meanSquare > 0 else { return }
        let loudness = 10 * log10(meanSquare)
        let change = Double(targetLoudness) - loudness
        guard change > 0 else { return }
        let gain = Float(pow(10, change / 20))
        for index in samples.indices { samples[index] *= gain }
    }

    /// One embedding per sequence of mel frames ([frames][40] each, none empty).
    func embeddings(ofMelFrames sequences: [[Float]]) -> [[Float]] {
        let hidden = SpeakerEncoderModel.hidden
        let gates = 4 * hidden
        let lengths = sequences.map { $0.count / MelSpectrogram.bands }
        // Longest first, so that the pieces still running at any step are a prefix.
        let order = lengths.indices.sorted { lengths[$0] > lengths[$1] }
        let steps = lengths.max() ?? 0
        let running = (0..<steps).map { step in order.prefix { lengths[$0] > step }.count }
        var stepStart = [Int](repeating: 0, count: steps + 1)
        for step in 0..<steps { stepStart[step + 1] = stepStart[step] + running[step] }
        let rows = stepStart[steps]

        // The packed input, time-major: the frames of step 0 of every piece, then step 1, ...
        var input = [Float](repeating: 0, count: rows * MelSpectrogram.bands)
        for step in 0..<steps {
            for slot in 0..<running[step] {
                let source = sequences[order[slot]]
                let from = step * MelSpectrogram.bands
                let to = (stepStart[step] + slot) * MelSpectrogram.bands
                for band in 0..<MelSpectrogram.bands { input[to + band] = source[from + band] }
            }
        }

        var state = [Float](repeating: 0, count: order.count * hidden)
        var cell = [Float](repeating: 0, count: order.count * hidden)
        var projected = [Float](repeating: 0, count: rows * gates)
        for (index, layer) in model.layers.enumerated() {
            let isLast = index == model.layers.count - 1
            // Every frame's input projection in one product, the biases added after.
            MatrixProduct.multiply(input, byTransposed: layer.inputWeights, into: &projected, rows: rows, columns: gates, inner: layer.inputSize)
            projected.withUnsafeMutableBufferPointer { projected in
                for row in 0..<rows {
                    let base = row * gates
                    for gate in 0..<gates { projected[base + gate] += layer.bias[gate] }
                }
            }
            for slot in state.indices {
                state[slot] = 0
                cell[slot] = 0
            }
            var output = isLast ? [] : [Float](repeating: 0, count: rows * hidden)
            projected.withUnsafeMutableBufferPointer { projected in
                state.withUnsafeMutableBufferPointer { state in
                    cell.withUnsafeMutableBufferPointer { cell in
                        for step in 0..<steps {
                            let count = running[step]
                            let gatesOfStep = projected.baseAddress! + stepStart[step] * gates
                            MatrixProduct.multiply(
                                state.baseAddress!, byTransposed: layer.recurrentWeights, into: gatesOfStep,
                                rows: count, columns: gates, inner: hidden, accumulate: true)
                            for slot in 0..<count {
                                let g = gatesOfStep + slot * gates
                                let h = state.baseAddress! + slot * hidden
                                let c = cell.baseAddress! + slot * hidden
                                for unit in 0..<hidden {
                                    let inputGate = Self.sigmoid(g[unit])
                                    let forgetGate = Self.sigmoid(g[hidden + unit])
                                    let candidate = Self.tanh(g[2 * hidden + unit])
                                    let outputGate = Self.sigmoid(g[3 * hidden + unit])
                                    let newCell = forgetGate * c[unit] + inputGate * candidate
                                    c[unit] = newCell
                                    h[unit] = outputGate * Self.tanh(newCell)
                                }
                                if !isLast {
                                    let row = (stepStart[step] + slot) * hidden
                                    for unit in 0..<hidden { output[row + unit] = h[unit] }
                                }
                            }
                        }
                    }
                }
            }
            if !isLast { input = output }
        }

        // The last layer's final states, through the linear layer, ReLU and L2 normalisation.
        let size = SpeakerEncoderModel.embeddingSize
        var linear = [Float](repeating: 0, count: order.count * size)
        MatrixProduct.multiply(state, byTransposed: model.linearWeights, into: &linear, rows: order.count, columns: size, inner: hidden)
        var result = [[Float]](repeating: [], count: sequences.count)
        for (slot, sequence) in order.enumerated() {
            var embedding = (0..<size).map { max(0, linear[slot * size + $0] + model.linearBias[$0]) }
            let norm = sqrt(embedding.reduce(0) { $0 + $1 * $1 })
            if norm > 0 { for unit in embedding.indices { embedding[unit] /= norm } }
            result[sequence] = embedding
        }
        return result
    }

    @inline(__always)
    private static func sigmoid(_ x: Float) -> Float { 1 / (1 + expf(-x)) }

    /// tanh through `expf`: glibc's `tanhf` goes through `expm1f` and took a third of the
    /// encoder's time; this is within 1e-7 of it, and `expf` is glibc's fast FMA path.
    @inline(__always)
    private static func tanh(_ x: Float) -> Float { 2 / (1 + expf(-2 * x)) - 1 }
}
