import Testing
@testable import StenoCore

@Suite struct WAVFileTests {
    @Test func oneSecondToneIsA16kHzMonoPCMFile() {
        let wav = WAVFile.tone(duration: .seconds(1))
        #expect(wav.count == 44 + 32_000)
        #expect(Array(wav[0..<4]) == Array("RIFF".utf8))
        #expect(Array(wav[8..<16]) == Array("WAVEfmt ".utf8))
        #expect(Array(wav[36..<40]) == Array("data".utf8))
        func uint32(_ offset: Int) -> UInt32 { wav[offset..<(offset + 4)].reversed().reduce(0) { $0 << 8 | UInt32($1) } }
        #expect(uint32(4) == UInt32(wav.count - 8))
        #expect(uint32(24) == 16_000)
        #expect(uint32(40) == 32_000)
        // Faded in: the first sample is silent; the middle is not.
        #expect(wav[44] == 0 && wav[45] == 0)
        #expect(wav[44 + 16_000..<44 + 16_100].contains { $0 != 0 })
    }
}
