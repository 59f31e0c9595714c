import StenoCore
import StenoInfrastructure
import Testing

@Suite("HTTP Range requests for the reader's audio")
struct ByteRangeRequestTests {
    @Test("one range of bytes is a part, its end clamped to the file")
    func parts() {
        #expect(ByteRangeRequest(header: "bytes=0-99", size: 1000) == .part(0...99))
        #expect(ByteRangeRequest(header: "bytes=100-", size: 1000) == .part(100...999))
        #expect(ByteRangeRequest(header: "bytes=900-5000", size: 1000) == .part(900...999))
        #expect(ByteRangeRequest(header: "bytes=999-999", size: 1000) == .part(999...999))
        // The unit is case-insensitive, and a range may have whitespace around it (a list element).
        #expect(ByteRangeRequest(header: "Bytes=5-9", size: 1000) == .part(5...9))
        #expect(ByteRangeRequest(header: "bytes= 5-9 ", size: 1000) == .part(5...9))
    }

    @Test("a suffix range is the file's last bytes, all of it when it asks for more")
    func suffixes() {
        #expect(ByteRangeRequest(header: "bytes=-100", size: 1000) == .part(900...999))
        #expect(ByteRangeRequest(header: "bytes=-5000", size: 1000) == .part(0...999))
        #expect(ByteRangeRequest(header: "bytes=-0", size: 1000) == .unsatisfiable)
    }

    @Test("a range past the end is unsatisfiable (416)")
    func pastTheEnd() {
        #expect(ByteRangeRequest(header: "bytes=1000-", size: 1000) == .unsatisfiable)
        #expect(ByteRangeRequest(header: "bytes=0-10", size: 0) == .unsatisfiable)
        #expect(ByteRangeRequest(header: "bytes=-10", size: 0) == .unsatisfiable)
    }

    @Test("no header, another unit, several ranges or a malformed one: the whole file")
    func wholeFile() {
        for header in [nil, "", "items=0-10", "bytes=0-10,20-30", "bytes=a-b", "bytes=10-5", "bytes=-", "bytes=5", "bytes=+5-9", "bytes=٣-٤"] {
            #expect(ByteRangeRequest(header: header, size: 1000) == .whole, "\(header ?? "nil")")
        }
    }

    @Test("Content-Range names the part and the file's size")
    func contentRange() {
        #expect(ByteRangeRequest.contentRange(100...199, size: 1000) == "bytes 100-199/1000")
    }
}
