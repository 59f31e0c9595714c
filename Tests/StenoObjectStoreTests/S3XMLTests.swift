import Testing

@testable import StenoObjectStore

@Suite("S3XML")
struct S3XMLTests {
    @Test("an error's code, an upload's id, and each upload of a listing, entities decoded")
    func readsS3Answers() throws {
        let error = try #require(S3XML(Array(#"<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Reduce &amp; retry</Message></Error>"#.utf8)))
        #expect(error.first("Code") == "SlowDown" && error.first("Message") == "Reduce & retry")
        let listing = try #require(S3XML(Array("""
            <ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>b</Bucket><Prefix/>
              <Upload><Key>uploads/a b.m4b</Key><UploadId>id-1</UploadId><Initiated>2026-11-28T10:00:00.000Z</Initiated></Upload>
              <Upload><Key>uploads/c.m4b</Key><UploadId>id-2</UploadId><Initiated>2026-11-29T10:00:00Z</Initiated></Upload>
            </ListMultipartUploadsResult>
            """.utf8)))
        let uploads = listing.records("Upload")
        #expect(uploads.map { $0["UploadId"] } == ["id-1", "id-2"] && uploads.first?["Key"] == "uploads/a b.m4b")
        let completed = try #require(S3XML(Array("<CompleteMultipartUploadResult><ETag>&quot;abc-3&quot;</ETag></CompleteMultipartUploadResult>".utf8)))
        #expect(completed.first("ETag") == "\"abc-3\"" && completed.first("Code") == nil)
        #expect(S3XML(Array("not xml".utf8)) == nil)
        #expect(S3XML(Array("<A><B>x</A>".utf8)) == nil)
    }
}
