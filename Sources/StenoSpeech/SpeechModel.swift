import Foundation

/// Where the pocketsphinx model files are.
public struct SpeechModel: Sendable, Equatable {
    public var acousticModel: String
    public var languageModel: String
    public var dictionary: String

    public init(acousticModel: String, languageModel: String, dictionary: String) {
        self.acousticModel = acousticModel
        self.languageModel = languageModel
        self.dictionary = dictionary
    }

    /// The US English model of Debian's `pocketsphinx-en-us`, or the same layout under `directory`.
    public static func englishUS(directory: String = "/usr/share/pocketsphinx/model/en-us") -> SpeechModel {
        SpeechModel(
            acousticModel: directory + "/en-us",
            languageModel: directory + "/en-us.lm.bin",
            dictionary: directory + "/cmudict-en-us.dict")
    }

    /// Checks that the files exist, so that a missing package shows at start-up with what to
    /// install. Alignment needs no language model: the text it aligns is its grammar.
    public func validate(forAlignment: Bool = false) throws(SpeechError) {
        let needed = forAlignment ? [acousticModel, dictionary] : [acousticModel, languageModel, dictionary]
        for path in needed where !FileManager.default.fileExists(atPath: path) {
            throw SpeechError(
                .modelUnavailable,
                "model file \(path) is missing: apt-get install pocketsphinx-en-us, or point Steno at a folder with en-us/, en-us.lm.bin and cmudict-en-us.dict (STENO_ASR_MODEL_DIR for steno-asr, STENO_ALIGNMENT_MODEL_DIR for steno-worker)")
        }
    }
}
