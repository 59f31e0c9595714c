import Foundation
public import StenoCore

/// Runs `SileroModel` over a stream of 16 kHz mono PCM, 512 samples (32 ms) at a time, carrying
/// the LSTM state and the 64 samples of context from one window to the next, as faster-whisper
/// does over a whole file. Blocks may be of any size. A final partial window is padded with
/// silence.
///
/// A value made and used on one thread (the decoder's); the model it reads is shared.
public struct SileroDetector: AudioAnalysis {
    private let model: SileroModel
    private let start: MediaTime
    private var probabilities: [UInt8] = []
    /// The window being filled: 64 samples of context, then up to 512 new ones.
    private var window = [Float](repeating: 0, count: SileroModel.context + SileroModel.window)
    private var filled = 0
    private var scratch = Scratch()

    /// Detects speech in audio whose first sample is at `start` on the media's clock.
    /// `expectedSamples` sizes the result once instead of growing it.
    public init(model: SileroModel, start: MediaTime, expectedSamples: Int64? = nil) {
        self.model = model
        self.start = start
        if let expectedSamples, expectedSamples > 0 {
            probabilities.reserveCapacity(Int(expectedSamples) / SileroModel.window + 1)
        }
    }

    public mutating func append(_ block: UnsafeBufferPointer<Int16>) {
        var index = 0
        while index < block.count {
            let take = min(SileroModel.window - filled, block.count - index)
            for offset in 0..<take {
                window[SileroModel.context + filled + offset] = Float(block[index + offset]) / 32768
            }
            filled += take
            index += take
            if filled == SileroModel.window { runWindow() }
        }
    }

    public mutating func finish() -> VoiceActivity {
        if filled > 0 {
            for offset in filled..<SileroModel.window { window[SileroModel.context + offset] = 0 }
            filled = SileroModel.window
            runWindow()
        }
        return VoiceActivity(start: start, probabilities: probabilities)
    }

    /// The unquantised probability of each window (for checks against the reference runtime).
    static func probabilities(of samples: [Int16], model: SileroModel) -> [Float] {
        var detector = SileroDetector(model: model, start: .zero)
        var exact: [Float] = []
        detector.onWindow = { exact.append($0) }
        samples.withUnsafeBufferPointer { detector.append($0) }
        _ = detector.finish()
        return exact
    }

    private var onWindow: ((Float) -> Void)?

    private mutating func runWindow() {
        let probability = scratch.forward(window, model: model)
        onWindow?(probability)
        probabilities.append(VoiceActivity.quantized(probability))
        // The last 64 samples become the next window's context.
        for offset in 0..<SileroModel.context {
            window[offset] = window[SileroModel.window + offset]
        }
        filled = 0
    }
}

extension SileroDetector {
    /// The LSTM state and the buffers of one forward pass, allocated once per detector.
    struct Scratch {
        var padded = [Float](repeating: 0, count: 832)
        /// Time-major activations: [frame][channel].
        var magnitudes = [Float](repeating: 0, count: 4 * SileroModel.bins)
        var layers: [[Float]] = [
            [Float](repeating: 0, count: 4 * 128), [Float](repeating: 0, count: 2 * 64),
            [Float](repeating: 0, count: 1 * 64), [Float](repeating: 0, count: 1 * 128),
        ]
        var gates = [Float](repeating: 0, count: 4 * SileroModel.hidden)
        var hidden = [Float](repeating: 0, count: SileroModel.hidden)
        var cell = [Float](repeating: 0, count: SileroModel.hidden)

        mutating func forward(_ input: [Float], model: SileroModel) -> Float {
            padReflecting(input)
            spectrum(model)
            var frames = 4
            for (layer, convolution) in model.convolutions.enumerated() {
                let source = layer == 0 ? magnitudes : layers[layer - 1]
                frames = Self.convolve(source, frames: frames, convolution, into: &layers[layer])
            }
            lstmStep(layers[3], model: model)
            var logit = model.outputBias
            for unit in 0..<SileroModel.hidden {
                logit += max(hidden[unit], 0) * model.outputWeights[unit]
            }
            return 1 / (1 + (-logit).exp)
        }

        /// 576 samples padded by 128 on each side, reflected without repeating the edge.
        private mutating func padReflecting(_ input: [Float]) {
            let count = input.count
            for index in 0..<count { padded[128 + index] = input[index] }
            for index in 0..<128 {
                padded[index] = input[128 - index]
                padded[128 + count + index] = input[count - 2 - index]
            }
        }

        /// Magnitudes of STFT frames 1...4 (frame 0 is dropped by the network).
        private mutating func spectrum(_ model: SileroModel) {
            let bins = SileroModel.bins
            padded.withUnsafeBufferPointer { signal in
                model.basis.withUnsafeBufferPointer { basis in
                    magnitudes.withUnsafeMutableBufferPointer { magnitudes in
                        for frame in 0..<4 {
                            let samples = signal.baseAddress! + (frame + 1) * 128
                            for bin in 0..<bins {
                                let real = dot(basis.baseAddress! + bin * 256, samples, 256)
                                let imaginary = dot(basis.baseAddress! + (bins + bin) * 256, samples, 256)
                                magnitudes[frame * bins + bin] = (real * real + imaginary * imaginary).squareRoot()
                            }
                        }
                    }
                }
            }
        }

        /// A kernel-3 convolution with one frame of zero padding on each side, then ReLU.
        /// Returns the number of output frames.
        private static func convolve(_ input: [Float], frames: Int, _ convolution: SileroModel.Convolution, into output: inout [Float]) -> Int {
            let outputFrames = (frames + 2 - 3) / convolution.stride + 1
            let inputs = convolution.inputs
            input.withUnsafeBufferPointer { input in
                convolution.weights.withUnsafeBufferPointer { weights in
                    output.withUnsafeMutableBufferPointer { output in
                        for frame in 0..<outputFrames {
                            for channel in 0..<convolution.outputs {
                                var sum = convolution.bias[channel]
                                for tap in 0..<3 {
                                    let source = frame * convolution.stride + tap - 1
                                    guard source >= 0, source < frames else { continue }
                                    sum += dot(weights.baseAddress! + (channel * 3 + tap) * inputs, input.baseAddress! + source * inputs, inputs)
                                }
                                output[frame * convolution.outputs + channel] = max(sum, 0)
                            }
                        }
                    }
                }
            }
            return outputFrames
        }

        /// One LSTM step (ONNX's equations, gates i, o, f, c).
        private mutating func lstmStep(_ input: [Float], model: SileroModel) {
            let size = SileroModel.hidden
            input.withUnsafeBufferPointer { input in
                hidden.withUnsafeBufferPointer { hidden in
                    model.inputWeights.withUnsafeBufferPointer { w in
                        model.recurrentWeights.withUnsafeBufferPointer { r in
                            for row in 0..<(4 * size) {
                                gates[row] = model.gateBias[row]
                                    + dot(w.baseAddress! + row * size, input.baseAddress!, size)
                                    + dot(r.baseAddress! + row * size, hidden.baseAddress!, size)
                            }
                        }
                    }
                }
            }
            for unit in 0..<size {
                let inputGate = sigmoid(gates[unit])
                let outputGate = sigmoid(gates[size + unit])
                let forgetGate = sigmoid(gates[2 * size + unit])
                let candidate = tanh(gates[3 * size + unit])
                cell[unit] = forgetGate * cell[unit] + inputGate * candidate
                hidden[unit] = outputGate * tanh(cell[unit])
            }
        }
    }
}

@inline(__always)
private func sigmoid(_ x: Float) -> Float { 1 / (1 + (-x).exp) }

@inline(__always)
private func tanh(_ x: Float) -> Float {
    let e = (2 * x).exp
    return x > 20 ? 1 : x < -20 ? -1 : (e - 1) / (e + 1)
}

/// `a · b` over `count` floats, eight lanes at a time.
@inline(__always)
private func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ count: Int) -> Float {
    var sum0 = SIMD8<Float>(repeating: 0)
    var sum1 = SIMD8<Float>(repeating: 0)
    var index = 0
    while index + 16 <= count {
        sum0 += UnsafeRawPointer(a + index).loadUnaligned(as: SIMD8<Float>.self) * UnsafeRawPointer(b + index).loadUnaligned(as: SIMD8<Float>.self)
        sum1 += UnsafeRawPointer(a + index + 8).loadUnaligned(as: SIMD8<Float>.self) * UnsafeRawPointer(b + index + 8).loadUnaligned(as: SIMD8<Float>.self)
        index += 16
    }
    while index + 8 <= count {
        sum0 += UnsafeRawPointer(a + index).loadUnaligned(as: SIMD8<Float>.self) * UnsafeRawPointer(b + index).loadUnaligned(as: SIMD8<Float>.self)
        index += 8
    }
    var total = (sum0 + sum1).sum()
    while index < count {
        total += a[index] * b[index]
        index += 1
    }
    return total
}

extension Float {
    @inline(__always)
    fileprivate var exp: Float { Foundation.exp(self) }
}
