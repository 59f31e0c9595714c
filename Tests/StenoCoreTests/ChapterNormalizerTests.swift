import StenoCore
import Testing

private func ms(_ value: Int64) -> MediaTime { MediaTime(milliseconds: value) }
private func mark(_ title: String?, _ start: Int64, _ end: Int64) -> Chapter {
    Chapter(index: 0, title: title, start: ms(start), end: ms(end))
}

@Suite struct ChapterNormalizerTests {
    @Test func sortsFillsGapsAndExtendsToTheDuration() {
        let chapters = ChapterNormalizer.normalize([mark("B", 5000, 9000), mark("A", 1000, 4000)], duration: ms(12000))
        #expect(chapters.map(\.title) == ["A", "B"])
        #expect(chapters.map(\.start) == [ms(0), ms(5000)])
        #expect(chapters.map(\.end) == [ms(5000), ms(12000)])
        #expect(chapters.map(\.index) == [0, 1])
    }

    @Test func dropsZeroLengthAndPastTheEndMarks() {
        // simple.mkv: Intro covers the file, the others start after its end.
        let marks = [mark("Intro", 0, 1018), mark("Act 1", 60000, 60000), mark("Act 2", 330000, 330000), mark("Credits", 740000, 775000)]
        let chapters = ChapterNormalizer.normalize(marks, duration: ms(1018))
        #expect(chapters == [Chapter(index: 0, title: "Intro", start: ms(0), end: ms(1018))])
        #expect(ChapterNormalizer.usableMarkCount(marks, duration: ms(1018)) == 1)
    }

    @Test func noUsableMarksMeansOneChapter() {
        let marks = (1...129).map { mark("Marker \($0)", Int64($0) * 100, Int64($0) * 100) }
        let chapters = ChapterNormalizer.normalize(marks, duration: ms(13061))
        #expect(chapters == [Chapter(index: 0, title: nil, start: .zero, end: ms(13061))])
        #expect(ChapterNormalizer.usableMarkCount(marks, duration: ms(13061)) == 0)
        #expect(ChapterNormalizer.normalize([], duration: ms(500)).count == 1)
    }

    @Test func overlapsEndWhereTheNextBeginsAndEmptyTitlesAreNil() {
        let chapters = ChapterNormalizer.normalize([mark("", 0, 10001), mark("Two", 10000, 20000), mark("Dup", 10000, 15000)], duration: ms(20000))
        #expect(chapters.map(\.title) == [nil, "Two"])
        #expect(chapters.map(\.end) == [ms(10000), ms(20000)])
    }

    @Test func timeBasesConvertExactly() {
        // 1/44100 (FLAC cuesheet), 1/10^7 (Nero), 1/10^9 (Matroska) against milliseconds.
        #expect(MediaTime(value: 44100, timeBase: 1, 44100) == MediaTime(seconds: 1))
        #expect(MediaTime(value: 175_070_000, timeBase: 1, 10_000_000) == ms(17507))
        #expect(MediaTime(value: 1_018_000_000, timeBase: 1, 1_000_000_000) == ms(1018))
        #expect(MediaTime(value: 184_320_000, timeBase: 1, 14_112_000).sampleIndex(rate: 16_000) == 208_980)
        // Sums of many odd fractions stay exact.
        var total = MediaTime.zero
        for _ in 0..<44100 { total = total + MediaTime(value: 1, timeBase: 1, 44100) }
        #expect(total == MediaTime(seconds: 1))
    }

    @Test func sampleIndicesRoundHalfUpAndTile() {
        // 1/32000 s is half a sample at 16 kHz: it rounds up.
        #expect(MediaTime(value: 1, timeBase: 1, 32000).sampleIndex(rate: 16_000) == 1)
        #expect(MediaTime(value: 1, timeBase: 1, 32001).sampleIndex(rate: 16_000) == 0)
        #expect(MediaTime(value: -1, timeBase: 1, 32000).sampleIndex(rate: 16_000) == 0)
        #expect(MediaTime(decimalSeconds: "10.110") == ms(10110))
        #expect(MediaTime(decimalSeconds: "29.116000") == ms(29116))
        #expect(MediaTime(decimalSeconds: "abc") == nil)
        #expect(ms(3_723_004).clockDescription == "1:02:03.004")
    }
}
