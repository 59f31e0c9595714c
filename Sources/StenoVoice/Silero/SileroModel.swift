public import Foundation

/// The weights of Silero VAD (v6, 16 kHz), read from the ONNX file that faster-whisper's wheel
/// ships (`faster_whisper/assets/silero_vad_v6.onnx`, MIT). Immutable and shared by every
/// detector of the process; a detector holds only its own state.
///
/// The network, per 32 ms window of 512 new samples with the 64 before them as context:
/// a reflect-padded STFT (a 258×256 basis convolution, stride 128) to 129 magnitudes over 4
/// frames, four 1-D convolutions with ReLU (129→128→64→64→128, kernel 3, strides 1, 2, 2, 1)
/// down to one 128-vector, one LSTM step (128 units) whose state carries to the next window,
/// then ReLU, a 1×1 convolution and a sigmoid: the probability that the window holds speech.
public struct SileroModel: Sendable {
    /// The model's file name wherever it is installed.
    public static let fileName = "silero_vad_v6.onnx"

    /// STFT basis, [258][256]: 129 real rows, then 129 imaginary ones.
    let basis: [Float]
    /// Convolutions, rearranged to [out][tap][in] so that each tap is one dot product over
    /// the time-major input's channels.
    let convolutions: [Convolution]
    /// LSTM input and recurrent weights, [512][128] each, gates in ONNX order i, o, f, c;
    /// the two biases summed, [512].
    let inputWeights: [Float]
    let recurrentWeights: [Float]
    let gateBias: [Float]
    /// The 1×1 output convolution.
    let outputWeights: [Float]
    let outputBias: Float

    struct Convolution: Sendable {
        let inputs: Int
        let outputs: Int
        let stride: Int
        /// [outputs][3][inputs]
        let weights: [Float]
        let bias: [Float]
    }

    static let hidden = 128
    static let bins = 129
    static let window = 512
    static let context = 64

    /// Reads the model at `path`.
    public init(contentsOf path: String) throws(VoiceModelError) {
        let bytes = try ModelFile.bytes(at: path, script: "scripts/vad-model (faster-whisper's wheel on PyPI)", variable: "STENO_VAD_MODEL")
        do throws(VoiceModelError) {
            try self.init(modelBytes: bytes)
        } catch {
            throw VoiceModelError(
                error.code, "not Silero VAD v6 as faster-whisper ships it (\(error.message)); run scripts/vad-model to fetch that file",
                path: path)
        }
    }

    init(modelBytes: [UInt8]) throws(VoiceModelError) {
        let tensors = try ONNXInitializers(modelBytes: modelBytes)
        basis = try tensors.tensor("encoder.feature_extractor.forward_basis_buffer", dims: [258, 1, 256])
        let shapes = [(129, 128, 1), (128, 64, 2), (64, 64, 2), (64, 128, 1)]
        var convolutions: [Convolution] = []
        for (layer, shape) in shapes.enumerated() {
            let stored = try tensors.tensor("encoder.conv_layers.\(layer).weight", dims: [shape.1, shape.0, 3])
            let bias = try tensors.tensor("encoder.conv_layers.\(layer).bias", dims: [shape.1])
            var weights = [Float](repeating: 0, count: stored.count)
            for output in 0..<shape.1 {
                for input in 0..<shape.0 {
                    for tap in 0..<3 {
                        weights[(output * 3 + tap) * shape.0 + input] = stored[(output * shape.0 + input) * 3 + tap]
                    }
                }
            }
            convolutions.append(Convolution(inputs: shape.0, outputs: shape.1, stride: shape.2, weights: weights, bias: bias))
        }
        self.convolutions = convolutions
        inputWeights = try tensors.tensor("onnx::LSTM_209", dims: [1, 4 * Self.hidden, Self.hidden])
        recurrentWeights = try tensors.tensor("onnx::LSTM_210", dims: [1, 4 * Self.hidden, Self.hidden])
        let biases = try tensors.tensor("onnx::LSTM_211", dims: [1, 8 * Self.hidden])
        gateBias = (0..<(4 * Self.hidden)).map { biases[$0] + biases[4 * Self.hidden + $0] }
        outputWeights = try tensors.tensor("decoder.conv1d.weight", dims: [1, Self.hidden, 1])
        outputBias = try tensors.tensor("decoder.conv1d.bias", dims: [1])[0]
    }

    /// Where the model is: `configured` (`--vad-model`, `STENO_VAD_MODEL`) when given; else the
    /// places `ModelFile.locate` searches.
    public static func locate(configured: String?, executable: URL = executableURL()) -> String {
        ModelFile.locate(fileName, configured: configured, executable: executable)
    }

    /// The running executable's real path (`/proc/self/exe`: a program started through `PATH`
    /// has only its bare name in `argv[0]`).
    public static func executableURL() -> URL {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: path)
        }
        return URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
    }
}
