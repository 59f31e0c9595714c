import StenoCore
import Testing

@Suite("Text compression ratio")
struct TextCompressionTests {
    /// Python's `len(b)` and `len(zlib.compress(b))` for each text (zlib 1.2.13, level 6), as
    /// Whisper computes its ratio.
    static let zlib: [(text: String, bytes: Int, compressed: Int)] = [
        ("The lighthouse keeper climbed the stairs every evening.", 55, 59),
        ("Thank you for watching.", 23, 31),
        ("I am sorry. I am sorry. I am sorry. I am sorry. I am sorry. I am sorry.", 71, 23),
        ("the the the the the the the the the the the the the the the the the the", 71, 15),
        ("In the morning the harbour filled with boats. Fishermen sorted their nets and sold the catch on the quay. The keeper bought bread and walked back along the cliff.", 162, 123),
        ("And so we went on and on and on and on and on and on and on and on and on and on and on and on and on.", 102, 30),
        ("Ünïcödé wörds, ünïcödé wörds, ünïcödé wörds.", 59, 34),
    ]

    @Test("zlib's own ratio: loops above Whisper's 2.4 and sentences below it", arguments: zlib)
    func zlibRatio(_ sample: (text: String, bytes: Int, compressed: Int)) {
        #expect(TextCompression.ratio(sample.text) == Double(sample.bytes) / Double(sample.compressed))
    }

    @Test("an empty text has no ratio to speak of")
    func emptyText() {
        #expect(TextCompression.ratio("") == 0)
    }
}
