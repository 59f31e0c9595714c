import Foundation
import Hummingbird
import NIOPosix
import StenoCore
import StenoInfrastructure
import StenoMedia
import StenoVoice

extension OpenAIRoutes {
    /// The voice of each of a request's known speakers: its reference clip (a data URL of 1 to
    /// 30 s of audio, as OpenAI takes them) decoded with FFmpeg and measured by the speaker
    /// encoder, as the workers measure a media's speech. A clip that cannot be read refuses the
    /// request with the speaker's name; nothing is enqueued.
    func knownSpeakerVoices(_ known: [(name: String, reference: String)]) async throws -> [(name: String, embedding: [Float])] {
        guard !known.isEmpty else { return [] }
        guard let encoder = speakerEncoder else {
            throw APIError(
                .serviceUnavailable, code: "no_speaker_model", "this server cannot measure known_speaker_references[]: it has no speaker model",
                field: "known_speaker_references[]", hint: "the operator runs scripts/speaker-model and sets STENO_SPEAKER_MODEL for steno-api")
        }
        var voices: [(name: String, embedding: [Float])] = []
        for (name, reference) in known {
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard (1...200).contains(trimmed.count) else {
                throw APIError.badRequest("a known speaker's name must be 1 to 200 characters", field: "known_speaker_names[]")
            }
            guard reference.hasPrefix("data:"), let comma = reference.firstIndex(of: ","),
                reference[..<comma].hasSuffix(";base64"), let audio = Data(base64Encoded: String(reference[reference.index(after: comma)...]))
            else {
                throw APIError.badRequest(
                    "the reference of \(trimmed) is not a base64 data URL", field: "known_speaker_references[]",
                    hint: "send data:audio/wav;base64,... with 2 to 10 s of that speaker alone")
            }
            voices.append((trimmed, try await Self.measureVoice(audio, name: trimmed, encoder: encoder)))
        }
        return voices
    }

    static func measureVoice(_ audio: Data, name: String, encoder: SpeakerEncoder) async throws -> [Float] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("steno-voice-\(UUID().uuidString)").path
        defer { unlink(path) }
        do {
            try audio.write(to: URL(fileURLWithPath: path))
            let file = MediaFile(MediaLocation(path))
            let duration = try await file.probe(verifyingEnd: false).duration ?? .zero
            guard duration.seconds >= 1, duration.seconds <= 30 else {
                throw APIError.badRequest(
                    "the reference of \(name) lasts \(Int(duration.seconds.rounded())) s; send 1 to 30 s of that speaker alone",
                    field: "known_speaker_references[]")
            }
            let samples = try await file.decode(.zero..<duration).map { Float($0) / 32768 }
            // Pieces of at most 10 s: CAM++ reads any length, and a 10 s piece holds plenty of voice.
            let pieces = stride(from: 0, to: samples.count, by: 160_000).map { Array(samples[$0..<min(samples.count, $0 + 160_000)]) }
            // CPU work of a few hundred milliseconds at most: on a thread of NIO's pool.
            let embeddings = try await NIOThreadPool.singleton.runIfActive { encoder.embeddings(of: pieces) }
            return VoiceEmbedding.sum(embeddings.filter { !$0.isEmpty })
        } catch let error as MediaError {
            throw APIError(
                .unsupportedMediaType, code: "unreadable_media", "the reference of \(name) cannot be read: \(error.reason)",
                field: "known_speaker_references[]", hint: "send a wav, mp3, m4a, flac or ogg clip")
        }
    }
}
