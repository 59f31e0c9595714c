import Foundation
import StenoCore
import StenoMedia
import StenoTestSupport
import Testing

@Suite struct MediaErrorTests {
    private func probeError(_ location: MediaLocation) async -> MediaError? {
        do {
            _ = try await MediaFile.probe(location)
            return nil
        } catch {
            return error
        }
    }

    @Test func eachBadInputHasItsOwnError() async throws {
        var cases: [(MediaLocation, MediaError.Code)] = [
            (.file(path: try Fixtures.path("empty.mp3")), .emptyFile),
            (.file(path: try Fixtures.path("not-audio.mp3")), .notMediaFile),
            (.file(path: try Fixtures.path("silent-video.mp4")), .noAudioStream),
            (.file(path: Fixtures.directory.appendingPathComponent("no-such-book.m4b").path), .fileNotFound),
            (.file(path: Fixtures.directory.path), .notMediaFile),
            // Port 9 (discard) has no listener on 127.0.0.1: the connection is refused.
            (.url("http://127.0.0.1:9/book.m4b"), .network),
        ]
        cases += RealMediaCorpus.paths(["emptyfile.mp3"]).map { (.file(path: $0), .emptyFile) }
        for (location, code) in cases {
            let error = await probeError(location)
            #expect(error?.code == code, "\(location): \(String(describing: error))")
            #expect(error?.reason.isEmpty == false)
        }
    }

    @Test("a FIFO, a device or a socket is refused at once, not opened (a FIFO would block for ever)")
    func specialFilesAreRefused() async throws {
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("steno-fifo-\(getpid()).mp3").path
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        for path in [fifo, "/dev/zero", "/dev/null"] {
            let error = await probeError(.file(path: path))
            #expect(error?.code == .notMediaFile, "\(path): \(String(describing: error))")
            #expect(error?.failureClass == .media)
        }
    }

    @Test("a source URL answering 4xx is rejected for good (a media failure), not retried as a network fault", arguments: [404, 403, 401])
    func clientErrorFromSourceIsPermanent(status: Int) async throws {
        let server = try FaultServer(replies: [], then: .json(status, #"{"error":"no"}"#))
        defer { server.stop() }
        let error = await probeError(.url(server.baseURL + "/book.m4b"))
        #expect(error?.code == .sourceRejected, "\(String(describing: error))")
        #expect(error?.failureClass == .media)
    }

    @Test(.enabled(if: getuid() != 0, "root reads any file, so permissions cannot be denied"))
    func unreadableFileIsPermissionDenied() async throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("steno-unreadable-\(getpid()).m4b")
        try FileManager.default.copyItem(atPath: try Fixtures.path("book.m4b"), toPath: copy.path)
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: copy.path)
        #expect(await probeError(.file(path: copy.path))?.code == .permissionDenied)
    }

    @Test("probe finds files that hold less audio than they declare, and where their audio ends; whole files pass")
    func probeFindsTruncatedFiles() async throws {
        let cut = FileManager.default.temporaryDirectory.appendingPathComponent("steno-cut-\(UUID().uuidString.prefix(8)).mp3")
        defer { try? FileManager.default.removeItem(at: cut) }
        let whole = try Data(contentsOf: URL(fileURLWithPath: try Fixtures.path("book.mp3")))
        try whole.prefix(whole.count * 4 / 10).write(to: cut)
        var truncated: [(String, String)] = [
            (try Fixtures.path("truncated.m4b"), "holds only about 0:00:1"), (cut.path, "holds only about 0:00:1"),
        ]
        for (name, words) in [("nero-chapters.m4b", "holds none that can be read"), ("toc_many_children.mp3", "holds only about 0:00:0")] {
            truncated += RealMediaCorpus.paths([name]).map { ($0, words) }
        }
        for (path, words) in truncated {
            let error = await #expect(throws: MediaError.self) { try await MediaFile.probe(.file(path: path)) }
            #expect(error?.code == .truncated, "\(path): \(String(describing: error))")
            #expect(error?.reason.contains(words) == true, "\(path): \(String(describing: error))")
            #expect(error?.failureClass == .media)
        }
        let complete = try ["book.m4b", "book.mp3", "talk.mp4", "talk.mkv"].map { try Fixtures.path($0) }
            + RealMediaCorpus.paths(["alac.m4a", "bad-xing.mp3", "ep7.m4b", "example.opus", "silence-1.wma", "silence-44-s.flac", "simple.mkv"])
        for path in complete {
            await #expect(throws: Never.self, "\(path)") { _ = try await MediaFile.probe(.file(path: path)) }
        }
    }

    @Test func truncatedFileReportsTheShortfall() async throws {
        let file = MediaFile(.file(path: try Fixtures.path("truncated.m4b")))
        let info = try await file.probe(verifyingEnd: false)
        let duration = try #require(info.duration)
        let error = await #expect(throws: MediaError.self) { try await file.decode(.zero..<duration) }
        #expect(error?.code == .truncated, "\(String(describing: error))")
        #expect(error?.failureClass == .media)
    }

    @Test func containersDeclaringMoreThanTheyHoldAreTruncated() async throws {
        // 112 chapters over 47 declared hours, almost no audio.
        let nero = MediaFile(.file(path: try Fixtures.shared("nero-chapters.m4b")))
        let neroChapter = try #require(try await nero.probe(verifyingEnd: false).chapters.dropFirst(5).first)
        let neroError = await #expect(throws: MediaError.self) { try await nero.decode(neroChapter.start..<neroChapter.end) }
        #expect(neroError?.code == .truncated, "\(String(describing: neroError))")

        // 13 s declared, a few milliseconds of frames.
        let markers = MediaFile(.file(path: try Fixtures.shared("toc_many_children.mp3")))
        let duration = try #require(try await markers.probe(verifyingEnd: false).duration)
        let markerError = await #expect(throws: MediaError.self) { try await markers.decode(.zero..<duration) }
        #expect(markerError?.code == .truncated)
        #expect(markerError?.reason.contains("missing") == true)

        // The last Ogg granule claims 12.72 s; the pages hold 11.35 s (ffmpeg's CLI decodes as much).
        let opus = MediaFile(.file(path: try Fixtures.shared("example.opus")))
        let opusDuration = try #require(try await opus.probe().duration)
        let opusError = await #expect(throws: MediaError.self) { try await opus.decode(.zero..<opusDuration) }
        #expect(opusError?.code == .truncated)
        #expect(try await opus.decode(.zero..<MediaTime(seconds: 11)).count == 176_000)
    }

    @Test func rangesOutsideTheRecordingAreRejected() async throws {
        let file = MediaFile(.file(path: try Fixtures.path("book.m4b")))
        let error = await #expect(throws: MediaError.self) { try await file.decode(MediaTime(seconds: 20)..<MediaTime(seconds: 40)) }
        #expect(error?.code == .invalidRange)
        // The file stays usable after a rejected call.
        #expect(try await file.decode(.zero..<MediaTime(seconds: 1)).count == 16_000)
    }

    @Test func urlsAreRedactedInDescriptions() {
        let location = MediaLocation("https://user:secret@example.com/book.m4b?X-Amz-Signature=abc")
        #expect(location.description == "https://example.com/book.m4b?…")
        let error = MediaError(.network, "refused", source: location.description)
        #expect(!error.description.contains("secret") && !error.description.contains("abc"))
    }
}
