import Foundation
import StenoCore
import StenoMedia
import Testing

/// Peak resident memory of this process, reset on request (Linux /proc).
private enum PeakMemory {
    static func reset() throws {
        // "5" resets VmHWM to the current RSS (Linux 4.0 and later).
        try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    static func kilobytes(_ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix(field + ":") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }
}

@Suite(.serialized) struct MemoryTests {
    @Test(.timeLimit(.minutes(5)))
    func threeHourFileDecodesInBoundedMemory() async throws {
        let path = try Fixtures.longFile()
        let file = MediaFile(.file(path: path))
        let duration = try #require(try await file.probe().duration)
        #expect(duration > MediaTime(seconds: 3 * 3600))

        try PeakMemory.reset()
        let before = try PeakMemory.kilobytes("VmHWM")
        let counter = SampleCounter()
        let report = try await file.decode(.zero..<duration) { block in counter.add(block.count) }
        let peak = try PeakMemory.kilobytes("VmHWM")

        let expected = Int(duration.sampleIndex(rate: 16_000))
        #expect(counter.total == expected)
        #expect(report.samples == Int64(expected))
        // The decoded range is 345 MB of 16 kHz s16; a streaming decode holds a frame or two.
        // 64 MB leaves room for other tests running in parallel in this process.
        let growthMB = Double(peak - before) / 1024
        #expect(growthMB < 64, "peak RSS grew by \(growthMB) MB while decoding 3 hours")
    }
}
