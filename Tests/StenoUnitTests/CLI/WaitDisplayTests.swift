import Foundation
import StenoCore
import Testing

@testable import StenoCLI

/// `steno wait` redraws its bars in place by moving the cursor up one row per line: a line as wide
/// as the terminal wraps and leaves a copy behind on every redraw.
@Suite("steno wait display")
struct WaitDisplayTests {
    static func media(_ id: Int64, title: String, stage: ProgressStage, percent: Double, error: String? = nil) -> MediaProgress {
        MediaProgress(
            mediaID: id, title: title, source: "/media/\(title).m4b", state: stage == .failed ? .failed : .transcribing, stage: stage,
            priority: .low, durationSeconds: 3600, chapters: 40, chaptersDone: 12, chaptersFailed: 0, chunks: 400, chunksDone: 120,
            chunksFailed: 0, percent: percent, attempts: 130, failedJobs: 0, activeJobs: 8, costUSD: 0, estimatedCostUSD: nil,
            errorClass: error == nil ? nil : "media", errorMessage: error, chapterSelection: "all", focusChapter: nil,
            createdAt: Date(), updatedAt: Date(), finishedAt: nil)
    }

    @Test("every line fits the terminal, wide or narrow, whatever the title and the failure", arguments: [200, 120, 80, 60, 40, 24])
    func linesFit(columns: Int) {
        let display = WaitProgressDisplay(style: .bars, columns: columns)
        let items = [
            Self.media(123_456, title: String(repeating: "The Very Long Title of an Audiobook ", count: 4), stage: .transcribing, percent: 33.3),
            Self.media(7, title: "Short", stage: .failed, percent: 0, error: String(repeating: "a long reason from the backend ", count: 8)),
            Self.media(8, title: "evil\u{1B}[2Jname", stage: .transcribing, percent: 100),
        ]
        let lines = display.bars(items, deleted: [9], columns: columns)
        #expect(lines.count == 4)
        for line in lines {
            #expect(line.count < max(21, columns), "\(line.count) characters on \(columns) columns: \(line)")
            #expect(!line.unicodeScalars.contains { $0.value == 0x1B }, "\(line.debugDescription)")
        }
        if columns >= 80 { #expect(lines[0].contains("transcribing")) }
    }
}
