import Foundation

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
