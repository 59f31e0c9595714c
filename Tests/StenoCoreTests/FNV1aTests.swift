import StenoInfrastructure
import Testing

@Suite("FNV-1a")
struct FNV1aTests {
    @Test("the published 64-bit FNV-1a values")
    func publishedVectors() {
        #expect(FNV1a.hash([UInt8]()) == 0xcbf2_9ce4_8422_2325)
        #expect(FNV1a.hash(Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
        #expect(FNV1a.hash(Array("foobar".utf8)) == 0x8594_4171_f739_67e8)
        #expect(FNV1a.hex("foobar") == "85944171f73967e8")
    }

    @Test("bytes given in pieces hash as bytes given at once")
    func incremental() {
        var hasher = FNV1a()
        hasher.combine(Array("foo".utf8))
        hasher.combine(UInt8(ascii: "b"))
        hasher.combine("ar".utf8)
        #expect(hasher.value == FNV1a.hash("foobar".utf8))
    }
}
