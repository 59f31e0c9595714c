public import Foundation

/// The weights of Resemblyzer's speaker encoder (GE2E, Apache-2.0), read from the checkpoint its
/// PyPI wheel ships (`resemblyzer/pretrained.pt`). Immutable and shared by every job.
///
/// The network: 40 mel bands per 10 ms frame into a 3-layer LSTM of 256 units (torch's gate
/// order i, f, g, o), the last layer's final hidden state through a 256×256 linear layer, a
/// ReLU and L2 normalisation: a 256-dimensional voice embedding whose cosine similarity says
/// how alike two voices are.
public struct SpeakerEncoderModel: Sendable {
    /// The model's file name wherever it is installed.
    public static let fileName = "resemblyzer_ge2e.pt"

    static let inputSize = MelSpectrogram.bands
    static let hidden = 256
    public static let embeddingSize = 256
    static let layerCount = 3

    struct Layer: Sendable {
        let inputSize: Int
        /// [4·hidden][inputSize]
        let inputWeights: [Float]
        /// [4·hidden][hidden]
        let recurrentWeights: [Float]
        /// Both biases summed, [4·hidden].
        let bias: [Float]
    }

    let layers: [Layer]
    /// [embeddingSize][hidden]
    let linearWeights: [Float]
    let linearBias: [Float]

    /// Reads the model at `path`.
    public init(contentsOf path: String) throws(VoiceModelError) {
        let bytes = try ModelFile.bytes(at: path, script: "scripts/speaker-model (Resemblyzer's wheel on PyPI)", variable: "STENO_SPEAKER_MODEL")
        do throws(VoiceModelError) {
            try self.init(checkpoint: TorchCheckpoint(bytes: bytes))
        } catch {
            throw VoiceModelError(
                error.code, "not Resemblyzer's speaker encoder as its wheel ships it (\(error.message)); run scripts/speaker-model to fetch that file",
                path: path)
        }
    }

    init(checkpoint: TorchCheckpoint) throws(VoiceModelError) {
        let state = "model_state"
        let gates = 4 * Self.hidden
        var layers: [Layer] = []
        for index in 0..<Self.layerCount {
            let inputSize = index == 0 ? Self.inputSize : Self.hidden
            let biasIH = try checkpoint.floats("lstm.bias_ih_l\(index)", in: state, shape: [gates])
            let biasHH = try checkpoint.floats("lstm.bias_hh_l\(index)", in: state, shape: [gates])
            layers.append(Layer(
                inputSize: inputSize,
                inputWeights: try checkpoint.floats("lstm.weight_ih_l\(index)", in: state, shape: [gates, inputSize]),
                recurrentWeights: try checkpoint.floats("lstm.weight_hh_l\(index)", in: state, shape: [gates, Self.hidden]),
                bias: zip(biasIH, biasHH).map { $0 + $1 }))
        }
        self.layers = layers
        linearWeights = try checkpoint.floats("linear.weight", in: state, shape: [Self.embeddingSize, Self.hidden])
        linearBias = try checkpoint.floats("linear.bias", in: state, shape: [Self.embeddingSize])
    }

    /// Where the model is: `configured` (`--speaker-model`, `STENO_SPEAKER_MODEL`) when given;
    /// else the places `ModelFile.locate` searches.
    public static func locate(configured: String?, executable: URL = SileroModel.executableURL()) -> String {
        ModelFile.locate(fileName, configured: configured, executable: executable)
    }
}
