import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// `GET /v1/media/{id}/transcript` answers with the export written piece by piece as the store
/// reads it: the same bytes as the transcript rendered whole.
@Suite("steno-api: transcript export")
struct APITranscriptTests {
    @Test("every format is the rendered transcript, byte for byte; no transcript yet is an error before the answer starts")
    func streamedTranscript() async throws {
        try await RunningAPI.with { api in
            let segments = (0..<2500).map { index in
                TestMediaBuilder.Segment(Double(index) * 2, Double(index) * 2 + 1.5, "Line \(index) of a long book, with <marks> & words.")
            }
            let book = try await TestMediaBuilder.insert(
                .init("/books/long.m4b", title: "Long", chapters: [.init("One", 0, 5000, segments: segments), .init("Two", 5000, 5100, state: "transcribing")]),
                into: api.client)
            let waiting = try await TestMediaBuilder.insert(.init("/books/waiting.m4b", state: "queued"), into: api.client)
            try await api.client.query("UPDATE media SET tenant = 'acme'")
            let key = try await api.key(.read)
            let whole = try await AdminStore(client: api.client).transcript(mediaID: book.mediaID)
            for format in TranscriptFormat.allCases {
                let answer = try await HTTP.request("GET", api.url("/v1/media/\(book.mediaID)/transcript?format=\(format.rawValue)"), key: key)
                #expect(answer.status == 200)
                #expect(answer.text == (try format.render(whole)), "\(format)")
            }
            let chapter = try await HTTP.request("GET", api.url("/v1/media/\(book.mediaID)/transcript?format=txt&chapter=1"), key: key)
            #expect(chapter.text == (try TranscriptFormat.txt.render(try await AdminStore(client: api.client).transcript(mediaID: book.mediaID, chapter: 1))))
            let none = try await HTTP.request("GET", api.url("/v1/media/\(waiting.mediaID)/transcript"), key: key)
            #expect(none.status == 409 || none.status == 404, "\(none.status) \(none.text)")
            #expect(none.text.contains("no transcript"))
        }
    }
}
