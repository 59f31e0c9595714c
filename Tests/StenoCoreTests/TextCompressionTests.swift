import StenoCore
import Testing

@Suite("Text compression ratio")
struct TextCompressionTests {
    /// Python's `len(b) / len(zlib.compress(b))` for each text (zlib 1.2.13, level 6).
    static let zlib: [(text: String, ratio: Double)] = [
        ("The lighthouse keeper climbed the stairs every evening.", 0.932),
        ("Thank you for watching.", 0.742),
        ("I am sorry. I am sorry. I am sorry. I am sorry. I am sorry. I am sorry.", 3.087),
        ("the the the the the the the the the the the the the the the the the the", 4.733),
        ("In the morning the harbour filled with boats. Fishermen sorted their nets and sold the catch on the quay. The keeper bought bread and walked back along the cliff.", 1.317),
        ("And so we went on and on and on and on and on and on and on and on and on and on and on and on and on.", 3.4),
    ]

    @Test("close to zlib's ratio; loops above Whisper's 2.4 and sentences below it", arguments: zlib)
    func closeToZlib(_ sample: (text: String, ratio: Double)) {
        let estimate = TextCompression.ratio(sample.text)
        #expect(abs(estimate - sample.ratio) <= max(0.1, sample.ratio * 0.12), "\(estimate) against zlib's \(sample.ratio)")
        #expect((estimate > 2.4) == (sample.ratio > 2.4))
    }
}
