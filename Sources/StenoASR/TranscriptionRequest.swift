import StenoCore
import StenoInfrastructure

/// The fields of `POST /v1/audio/transcriptions` that steno-asr reads.
struct TranscriptionRequest: Sendable {
    enum ResponseFormat: String, Sendable, CaseIterable {
        case json, text, srt, vtt
        case verboseJSON = "verbose_json"
    }

    var audio: [UInt8]
    var filename: String
    var model: String
    var responseFormat: ResponseFormat
    var wordTimestamps: Bool

    /// Validates the form as OpenAI does: `file` and `model` required, English only.
    init(form: MultipartFormData) throws(ASRError) {
        guard let file = form.part("file") else { throw ASRError.missingField("file") }
        guard !file.body.isEmpty else {
            throw ASRError(status: 400, message: "the uploaded file is empty", code: "invalid_file", param: "file")
        }
        guard let model = form.part("model")?.text, !model.isEmpty else { throw ASRError.missingField("model") }
        if let language = form.part("language")?.text, !language.isEmpty, !["en", "eng", "english"].contains(language.lowercased()) {
            throw ASRError(
                status: 400,
                message: "steno-asr recognises English only (language 'en'); '\(language)' is not supported. Use another backend for other languages.",
                code: "unsupported_language", param: "language")
        }
        let format = form.part("response_format")?.text ?? "json"
        guard let responseFormat = ResponseFormat(rawValue: format) else {
            throw ASRError(
                status: 400,
                message: "response_format '\(format)' is not one of \(ResponseFormat.allCases.map(\.rawValue).joined(separator: ", "))",
                code: "invalid_value", param: "response_format")
        }
        let granularities = form.parts(named: "timestamp_granularities[]").map(\.text) + form.parts(named: "timestamp_granularities").map(\.text)
        self.audio = file.body
        self.filename = file.filename ?? "audio"
        self.model = model
        self.responseFormat = responseFormat
        self.wordTimestamps = granularities.contains("word")
    }
}
