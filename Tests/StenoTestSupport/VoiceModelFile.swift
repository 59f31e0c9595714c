public import Foundation
public import StenoVoice

/// Where the tests find the speech-detection model: `STENO_VAD_MODEL`, else where
/// `scripts/vad-model` puts it (`.steno/models/` at the repository root), which `scripts/test`
/// runs first.
public enum VoiceModelFile {
    public static var path: String {
        if let configured = ProcessInfo.processInfo.environment["STENO_VAD_MODEL"], !configured.isEmpty {
            return configured
        }
        return repositoryRoot.appendingPathComponent(".steno/models/silero_vad_v6.onnx").path
    }

    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}

/// Where the tests find the speaker encoder (CAM++): `STENO_SPEAKER_MODEL`, else where
/// `scripts/speaker-model` puts it, which `scripts/test` runs first.
public enum SpeakerModelFile {
    public static var path: String {
        if let configured = ProcessInfo.processInfo.environment["STENO_SPEAKER_MODEL"], !configured.isEmpty {
            return configured
        }
        return VoiceModelFile.repositoryRoot.appendingPathComponent(".steno/models/\(SpeakerEncoderModel.fileName)").path
    }

    /// The model, read once per test process.
    public static func model() throws -> SpeakerEncoderModel {
        try loaded.get()
    }

    private static let loaded = Result { try SpeakerEncoderModel(contentsOf: path) }

    /// The worker's speaker pass over both models, read once per test process.
    public static func pass() throws -> SpeakerPass {
        try speakerPass.get()
    }

    private static let speakerPass = Result { SpeakerPass(segmentation: try SegmentationModelFile.model(), encoder: try model()) }
}

/// Where the tests find the segmentation model (segmentation-3.0): `STENO_SEGMENTATION_MODEL`,
/// else beside the speaker encoder, where `scripts/speaker-model` puts both.
public enum SegmentationModelFile {
    public static var path: String {
        if let configured = ProcessInfo.processInfo.environment["STENO_SEGMENTATION_MODEL"], !configured.isEmpty {
            return configured
        }
        return URL(fileURLWithPath: SpeakerModelFile.path).deletingLastPathComponent().appendingPathComponent(SegmentationModel.fileName).path
    }

    /// The model, read once per test process.
    public static func model() throws -> SegmentationModel {
        try loaded.get()
    }

    private static let loaded = Result { try SegmentationModel(contentsOf: path) }
}

/// Real voices (LibriSpeech utterances, CC BY 4.0) for the speaker tests: `STENO_VOICES_DIR`,
/// else `../shared/voices` beside the clone. Not in the repository: the tests that read them are
/// skipped where there are none.
public enum RealVoices {
    public static let variable = "STENO_VOICES_DIR"

    public static let directory: URL? = {
        if let configured = ProcessInfo.processInfo.environment[variable], !configured.isEmpty {
            return URL(fileURLWithPath: configured).standardizedFileURL
        }
        let beside = PackageRoot.url.deletingLastPathComponent().appendingPathComponent("shared/voices").standardizedFileURL
        return FileManager.default.fileExists(atPath: beside.appendingPathComponent("87.flac").path) ? beside : nil
    }()
}
