import Foundation
import Testing

@testable import StenoAPI

@Suite("Which left-over uploads a sweep removes")
struct UploadSweepTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let uuid = "0f8fad5b-d9cb-469f-a165-70867728950e"

    func file(_ name: String, minutesOld: Double) -> UploadSweep.File {
        UploadSweep.File(name: name, modified: now.addingTimeInterval(-minutesOld * 60), bytes: 10)
    }

    @Test("only Steno's names are its to remove: a lowercased UUID and a short lowercase extension, or none")
    func names() {
        #expect(UploadSweep.isUploadName(uuid))
        #expect(UploadSweep.isUploadName(uuid + ".mp3"))
        #expect(UploadSweep.isUploadName(uuid + ".m4b"))
        #expect(!UploadSweep.isUploadName(uuid.uppercased() + ".mp3"))
        #expect(!UploadSweep.isUploadName(uuid + ".MP3"))
        #expect(!UploadSweep.isUploadName(uuid + "."))
        #expect(!UploadSweep.isUploadName(uuid + ".tar.gz"))
        #expect(!UploadSweep.isUploadName(uuid + ".abcdefghijk"))
        #expect(!UploadSweep.isUploadName("book.mp3"))
        #expect(!UploadSweep.isUploadName(".nfs000000001"))
        #expect(!UploadSweep.isUploadName(String(uuid.dropLast()) + "x.flac"))
    }

    @Test("a file written within the hour is left alone, whatever its name")
    func age() {
        let rule = UploadSweep()
        let files = [
            file(uuid + ".flac", minutesOld: 59), file(uuid + ".wav", minutesOld: 61), file("notes.txt", minutesOld: 600),
            file(uuid, minutesOld: 60),
        ]
        #expect(rule.candidates(files, now: now).map(\.name) == [uuid + ".wav", uuid])
    }

    @Test("a candidate some media names is kept; the others are orphans")
    func orphans() {
        let rule = UploadSweep()
        let kept = file(uuid + ".flac", minutesOld: 120)
        let orphan = file("7c9e6679-7425-40de-944b-e07fc1f90ae7.mp3", minutesOld: 120)
        let found = rule.orphans([kept, orphan], in: "/srv/uploads", named: ["/srv/uploads/" + uuid + ".flac"])
        #expect(found == [orphan])
    }
}
