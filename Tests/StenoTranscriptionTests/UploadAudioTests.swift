import Foundation
import StenoCore
import StenoTestSupport
import Synchronization
import Testing
@testable import StenoTranscription

/// A chunk's audio that can be made again is dropped once sent, so that a job waiting for the
/// backend's answer holds none, and made again for a retry; audio that cannot is kept.
@Suite struct UploadAudioTests {
    static let audio = WAVFile.tone(duration: .milliseconds(250))
    static let overloaded = FaultServer.Reply.openAIError(503, message: "overloaded", type: "server_error", headers: [("Retry-After", "0")])

    final class Remakes: Sendable {
        let count = Atomic(0)
    }

    static func remakable(_ remakes: Remakes) -> UploadAudio {
        UploadAudio(audio) {
            remakes.count.add(1, ordering: .relaxed)
            return audio
        }
    }

    static func request(_ upload: UploadAudio) -> TranscriptionRequest {
        TranscriptionRequest(upload: upload, format: .wav, duration: .milliseconds(250))
    }

    /// The file part of every request the server read.
    static func uploads(_ server: FaultServer) -> [[UInt8]] {
        server.requests.map { $0.parts.first { $0.fileName != nil }?.body ?? [] }
    }

    @Test("audio that can be made again is handed to the first upload and made again for the retry")
    func remadeForTheRetry() async throws {
        let server = try FaultServer(replies: [Self.overloaded])
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let remakes = Remakes()
        let upload = Self.remakable(remakes)
        let result = await TestBackend.outcome { try await client.transcribe(Self.request(upload)) }
        #expect(result.success?.requests == 2)
        #expect(remakes.count.load(ordering: .relaxed) == 1)
        #expect(Self.uploads(server) == [Self.audio, Self.audio])
        #expect(upload.count == Self.audio.count)
    }

    @Test("audio that can be made again is not made again when the first upload is answered")
    func notRemadeWithoutRetry() async throws {
        let server = try FaultServer(replies: [])
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let remakes = Remakes()
        let result = await TestBackend.outcome { try await client.transcribe(Self.request(Self.remakable(remakes))) }
        #expect(result.success?.requests == 1)
        #expect(remakes.count.load(ordering: .relaxed) == 0)
        #expect(Self.uploads(server) == [Self.audio])
    }

    @Test("audio a failed request never sent in full is given back and sent again without being made again")
    func givenBackWhenUnsent() async throws {
        let server = try FaultServer(replies: [.stallUpload(afterBytes: 32 * 1024)])
        // The first upload stalls for good, so any limit ends it; the second must not be taken
        // for a stall while a loaded machine reads its 8 MB, so the limit is seconds, not ms.
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL, stall: .seconds(5)))
        let remakes = Remakes()
        // Larger than any socket buffer, so that the stalled upload cannot have been sent whole.
        let large = [UInt8](repeating: 7, count: 8 * 1024 * 1024)
        let upload = UploadAudio(large) {
            remakes.count.add(1, ordering: .relaxed)
            return large
        }
        let result = await TestBackend.outcome { try await client.transcribe(Self.request(upload)) }
        #expect(result.success?.requests == 2)
        #expect(remakes.count.load(ordering: .relaxed) == 0)
        #expect(Self.uploads(server).last.map { $0 == large } == true, "the second request sent the whole recording")
    }

    @Test("audio that cannot be made again is kept for every request")
    func keptWithoutRemake() async throws {
        let server = try FaultServer(replies: [Self.overloaded])
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let result = await TestBackend.outcome {
            try await client.transcribe(TranscriptionRequest(audio: Self.audio, format: .wav, duration: .milliseconds(250)))
        }
        #expect(result.success?.requests == 2)
        #expect(Self.uploads(server) == [Self.audio, Self.audio])
    }

    @Test("a remake that fails ends the request with its reason, and nothing more is sent")
    func failedRemake() async throws {
        struct Gone: Error, CustomStringConvertible { var description: String { "the recording is gone" } }
        let server = try FaultServer(replies: [Self.overloaded])
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let result = await TestBackend.outcome { try await client.transcribe(Self.request(UploadAudio(Self.audio) { throw Gone() })) }
        let error = try #require(result.failure)
        #expect(error.code == .clientFailure)
        #expect(error.message.contains("the recording is gone"))
        #expect(server.requestCount == 1)
    }
}
