import Foundation
import Hummingbird
import Logging
import StenoCore
import StenoInfrastructure
import StenoSpeech

extension ASRServer {
    func healthResponse() throws -> Response {
        let ready = recognizer.isReady
        let body = "{\"status\":\"\(ready ? "ok" : "loading")\",\"recognizers\":\(configuration.recognizers),\"waiting\":\(recognizer.waitingCount)}"
        return Self.response(status: ready ? .ok : .serviceUnavailable, contentType: "application/json", body: Data(body.utf8))
    }

    func modelsResponse() throws -> Response {
        let body = "{\"object\":\"list\",\"data\":[{\"id\":\"\(configuration.modelName)\",\"object\":\"model\",\"created\":0,\"owned_by\":\"steno\"}]}"
        return Self.response(status: .ok, contentType: "application/json", body: Data(body.utf8))
    }

    func transcriptionResponse(_ request: Request, context: some RequestContext) async -> Response {
        let started = ContinuousClock.now
        do {
            try authorize(request)
            let form = try await readForm(request)
            let transcriptionRequest = try TranscriptionRequest(form: form)
            let samples = try await UploadedAudio.decode(transcriptionRequest.audio, filename: transcriptionRequest.filename)
            let transcript: SpeechTranscript
            do {
                transcript = try await recognizer.transcribe(samples)
            } catch {
                throw Self.asrError(error)
            }
            let response = TranscriptionResponse(
                transcript: transcript, format: transcriptionRequest.responseFormat, wordTimestamps: transcriptionRequest.wordTimestamps)
            logger.info(
                "transcribed",
                metadata: [
                    "audio.seconds": "\(transcript.duration)", "words": "\(transcript.words.count)",
                    "elapsed": "\((ContinuousClock.now - started).seconds)", "format": "\(transcriptionRequest.responseFormat.rawValue)",
                ])
            return Self.response(status: .ok, contentType: response.contentType, body: try response.body())
        } catch let error as ASRError {
            logger.notice("request refused", metadata: ["status": "\(error.status)", "code": "\(error.code)"])
            return Self.errorResponse(error)
        } catch {
            logger.error("request failed", metadata: ["error": "\(error)"])
            return Self.errorResponse(ASRError(status: 500, message: "internal error", type: "server_error", code: "internal_error"))
        }
    }

    /// With an API key configured, requires `Authorization: Bearer <key>`, compared in constant time.
    private func authorize(_ request: Request) throws(ASRError) {
        guard let key = configuration.apiKey else { return }
        let presented = request.headers[.authorization].map { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : "" } ?? ""
        let expected = Array(key.utf8)
        let given = Array(presented.utf8)
        var difference = UInt8(expected.count == given.count ? 0 : 1)
        for index in 0..<expected.count {
            difference |= expected[index] ^ (index < given.count ? given[index] : 0)
        }
        guard difference == 0 else {
            throw ASRError(
                status: 401, message: "Incorrect or missing API key: send 'Authorization: Bearer <key>' with the key steno-asr was started with.",
                code: "invalid_api_key")
        }
    }

    private func readForm(_ request: Request) async throws(ASRError) -> MultipartFormData {
        let limit = configuration.maxUploadBytes
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit {
            throw Self.tooLarge(limit)
        }
        guard let contentType = request.headers[.contentType], let boundary = MultipartFormData.boundary(fromContentType: contentType) else {
            throw ASRError(status: 400, message: "send the audio as multipart/form-data with a 'file' field", code: "invalid_content_type")
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: limit)
        } catch {
            throw Self.tooLarge(limit)
        }
        do {
            return try MultipartFormData(parsing: Array(body.readableBytesView), boundary: boundary)
        } catch {
            throw ASRError(status: 400, message: "malformed multipart body: \(error.description)", code: "invalid_multipart")
        }
    }

    private static func tooLarge(_ limit: Int) -> ASRError {
        ASRError(
            status: 413, message: "Maximum content size limit (\(limit)) exceeded: send a shorter or more compressed file.",
            code: "payload_too_large")
    }

    static func asrError(_ error: SpeechError) -> ASRError {
        switch error.code {
        case .loading:
            ASRError(status: 503, message: "The speech model is still loading; retry shortly.", type: "server_error", code: "model_loading", retryAfter: 2)
        case .overloaded:
            ASRError(status: 503, message: "The server is overloaded; retry shortly.", type: "server_error", code: "server_is_overloaded", retryAfter: 5)
        case .shutDown:
            ASRError(status: 503, message: "The server is shutting down.", type: "server_error", code: "shutting_down", retryAfter: 5)
        default:
            ASRError(status: 500, message: error.message, type: "server_error", code: error.code.rawValue)
        }
    }

    static func errorResponse(_ error: ASRError) -> Response {
        var response = response(status: .init(code: error.status), contentType: "application/json", body: error.jsonBody)
        if let retryAfter = error.retryAfter {
            response.headers[.retryAfter] = String(retryAfter)
        }
        return response
    }

    static func response(status: HTTPResponse.Status, contentType: String, body: Data) -> Response {
        Response(
            status: status, headers: [.contentType: contentType],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
