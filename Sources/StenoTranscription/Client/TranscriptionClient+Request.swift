extension TranscriptionClient {
    /// The multipart form for one chunk: `file` named with the format's extension, `model`, and
    /// the optional fields the configuration and request call for.
    /// A translation goes to the translations endpoint with the fields OpenAI defines for it:
    /// no `language` (the answer is English) and no `timestamp_granularities[]`.
    func httpRequest(
        for request: TranscriptionRequest, audio: [UInt8], model: String, format: TranscriptionResponseFormat, timeout: Duration
    ) -> HTTPRequest {
        var fields: [(name: String, value: String)] = [
            ("model", model),
            ("response_format", format.rawValue),
        ]
        let translating = request.task == .translate
        if format == .verboseJSON, !translating {
            for granularity in configuration.timestampGranularities {
                fields.append(("timestamp_granularities[]", granularity.rawValue))
            }
        }
        if let language = request.language, !language.isEmpty, !translating { fields.append(("language", language)) }
        if let prompt = request.prompt, !prompt.isEmpty { fields.append(("prompt", prompt)) }
        if let temperature = request.temperature { fields.append(("temperature", "\(temperature)")) }
        for extra in configuration.extraFields {
            fields.removeAll { $0.name == extra.name }
            fields.append(extra)
        }

        var headers = ["Accept: application/json"]
        if let apiKey = configuration.apiKey { headers.append("Authorization: Bearer \(apiKey.value)") }
        headers += configuration.extraHeaders.map { "\($0.name): \($0.value)" }
        // No `Expect: 100-continue`: it costs a round trip (or curl's one-second wait on servers
        // that ignore it) on every upload.
        headers.append("Expect:")

        return HTTPRequest(
            url: translating ? configuration.translationURL ?? configuration.endpointURL : configuration.endpointURL, headerLines: headers,
            body: .multipart(
                fields: fields,
                file: .init(
                    field: "file", fileName: request.format.fileName, contentType: request.format.mimeType, bytes: audio,
                    owner: request.audio.releasedAfterSending ? request.audio : nil)),
            connectTimeout: configuration.limits.connect, totalTimeout: timeout, stallTimeout: configuration.limits.stall)
    }
}
