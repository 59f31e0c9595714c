import Foundation
import StenoLinearAlgebra

/// The speaker encoder's input: 40 mel bands of the power spectrum, 25 ms Hann windows every
/// 10 ms of 16 kHz audio, as Resemblyzer computes it through `librosa.feature.melspectrogram`
/// (centred frames, the signal padded with 200 zeros each side, librosa's Slaney mel scale and
/// area normalisation, no logarithm).
///
/// The transform is two matrix products: the windowed frames times a real DFT basis (the
/// window folded in), then the power spectrum times the filter bank.
struct MelSpectrogram: Sendable {
    static let sampleRate = 16_000
    static let windowLength = 400
    static let hop = 160
    static let bins = windowLength / 2 + 1
    static let bands = 40

    /// [2·bins][windowLength]: cosine rows, then sine rows, each times the Hann window.
    private let basis: [Float]
    /// [bands][bins]
    private let filters: [Float]

    init() {
        let n = Self.windowLength
        var basis = [Float](repeating: 0, count: 2 * Self.bins * n)
        for k in 0..<Self.bins {
            for t in 0..<n {
                // librosa's window is periodic (scipy's get_window with fftbins=True).
                let window = 0.5 - 0.5 * cos(2 * Double.pi * Double(t) / Double(n))
                let angle = 2 * Double.pi * Double((k * t) % n) / Double(n)
                basis[k * n + t] = Float(window * cos(angle))
                basis[(Self.bins + k) * n + t] = Float(-window * sin(angle))
            }
        }
        self.basis = basis
        filters = Self.slaneyFilterBank()
    }

    /// The number of frames librosa makes of `samples` samples (centred).
    static func frameCount(samples: Int) -> Int { 1 + samples / hop }

    /// The mel frames of `samples` (floats in -1...1), [frames][bands], appended to `output`.
    func frames(of samples: UnsafeBufferPointer<Float>, into output: inout [Float]) {
        let frameCount = Self.frameCount(samples: samples.count)
        let n = Self.windowLength
        let pad = n / 2
        var framed = [Float](repeating: 0, count: frameCount * n)
        for frame in 0..<frameCount {
            let first = frame * Self.hop - pad
            let lower = max(0, first)
            let upper = min(samples.count, first + n)
            guard lower < upper else { continue }
            for index in lower..<upper { framed[frame * n + index - first] = samples[index] }
        }
        var spectrum = [Float](repeating: 0, count: frameCount * 2 * Self.bins)
        MatrixProduct.multiply(framed, byTransposed: basis, into: &spectrum, rows: frameCount, columns: 2 * Self.bins, inner: n)
        var power = [Float](repeating: 0, count: frameCount * Self.bins)
        for frame in 0..<frameCount {
            let row = frame * 2 * Self.bins
            for bin in 0..<Self.bins {
                let real = spectrum[row + bin]
                let imaginary = spectrum[row + Self.bins + bin]
                power[frame * Self.bins + bin] = real * real + imaginary * imaginary
            }
        }
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: frameCount * Self.bands))
        output.withUnsafeMutableBufferPointer { out in
            MatrixProduct.multiply(
                power, byTransposed: filters, into: out.baseAddress! + start, rows: frameCount, columns: Self.bands, inner: Self.bins)
        }
    }

    /// librosa's `filters.mel(sr=16000, n_fft=400, n_mels=40)`: triangles on the Slaney mel
    /// scale from 0 to 8 kHz, each scaled to unit area (`norm="slaney"`).
    static func slaneyFilterBank() -> [Float] {
        let frequencies = (0..<bins).map { Double($0) * Double(sampleRate) / Double(windowLength) }
        let lowest = hertzToMel(0)
        let highest = hertzToMel(Double(sampleRate) / 2)
        let edges = (0..<(bands + 2)).map { melToHertz(lowest + (highest - lowest) * Double($0) / Double(bands + 1)) }
        var weights = [Float](repeating: 0, count: bands * bins)
        for band in 0..<bands {
            let lowerWidth = edges[band + 1] - edges[band]
            let upperWidth = edges[band + 2] - edges[band + 1]
            let area = 2 / (edges[band + 2] - edges[band])
            for (bin, frequency) in frequencies.enumerated() {
                let rising = (frequency - edges[band]) / lowerWidth
                let falling = (edges[band + 2] - frequency) / upperWidth
                weights[band * bins + bin] = Float(max(0, min(rising, falling)) * area)
            }
        }
        return weights
    }

    private static let linearStep = 200.0 / 3
    private static let logStep = log(6.4) / 27

    static func hertzToMel(_ hertz: Double) -> Double {
        hertz >= 1000 ? 1000 / linearStep + log(hertz / 1000) / logStep : hertz / linearStep
    }

    static func melToHertz(_ mel: Double) -> Double {
        mel >= 1000 / linearStep ? 1000 * exp(logStep * (mel - 1000 / linearStep)) : mel * linearStep
    }
}
