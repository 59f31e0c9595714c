import ArgumentParser
import Foundation
import StenoCore
import StenoPostgres
import StenoStore

extension Steno {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show where a media stands, chapter by chapter; without an id, every media in progress.",
            discussion: HelpText.withExamples("""
                Stages: queued, probing, extracting (planning chunks at silences), transcribing,
                merging, done, failed, cancelled. Percent is chunk progress weighted by audio
                duration. Cost is what the backend charged so far and, once some chunks are done,
                that rate applied to the whole media.

                \(StenoExitCode.help)
                """, examples: [
                "steno status                              # counts and the media in progress",
                "steno status 12",
                "steno status 12 --json",
            ]))

        @OptionGroup var database: DatabaseOptions

        @Argument(help: ArgumentHelp("A media id, as `steno enqueue` and `steno list` print it.", valueName: "media"))
        var media: Int64?

        @Flag(help: "Print JSON for scripts.")
        var json = false

        func validate() throws {
            try MediaIDs.validate(media.map { [$0] } ?? [])
        }

        func run() async throws {
            try await CLIFailure.reporting {
                try await database.withAdminStore { store in
                    if let media {
                        try await showMedia(media, store: store)
                    } else {
                        try await showActive(store: store)
                    }
                }
            }
        }

        private struct MediaStatus: Encodable {
            var media: MediaProgress
            var chapters: [ChapterProgress]
            /// Why the media is not moving right now; empty when nothing holds it.
            var holds: [MediaHold]
            /// Who speaks, as chapters finish; empty with speaker detection off or none merged yet.
            var speakers: [AdminStore.SpeakerRecord]
        }

        private struct Overview: Encodable {
            var countsByState: [String: Int]
            var active: [MediaProgress]
        }

        private func showMedia(_ id: Int64, store: AdminStore) async throws {
            let progress = try await store.progress(of: id)
            let chapters = try await store.chapterProgress(of: id)
            let holds = try await store.holds(of: id)
            let speakers = try await store.speakers(mediaID: id)
            let speakerSetting = try await store.speakerSetting(mediaID: id)
            if json {
                try JSONOutput.print(MediaStatus(media: progress, chapters: chapters, holds: holds, speakers: speakers))
                return
            }
            print("media \(progress.mediaID): \(TerminalText.safe(progress.displayName))")
            var summary = TextTable(["", ""])
            summary.showsHeader = false
            summary.add(["source", progress.source])
            summary.add(["language", progress.languageText])
            summary.add(["stage", "\(progress.stage.rawValue), \(HumanFormat.percent(progress.percent))"])
            summary.add(["duration", HumanFormat.duration(progress.durationSeconds)])
            if progress.chapters > 0 {
                var chapterLine = "\(progress.chaptersDone) of \(progress.chapters) done"
                if progress.chaptersFailed > 0 { chapterLine += ", \(progress.chaptersFailed) failed" }
                if progress.chapterSelection != "all" { chapterLine += " (selected: \(progress.chapterSelection))" }
                summary.add(["chapters", chapterLine])
                summary.add(["chunks", "\(progress.chunksDone) of \(progress.chunks) done" + (progress.chunksFailed > 0 ? ", \(progress.chunksFailed) failed" : "")])
            } else if progress.chapterSelection != "all" {
                summary.add(["chapters", "selected: \(progress.chapterSelection)"])
            }
            summary.add(["attempts", "\(progress.attempts)" + (progress.failedJobs > 0 ? " (\(progress.failedJobs) failed job\(progress.failedJobs == 1 ? "" : "s"))" : "")])
            summary.add(["cost", costText(spent: progress.costUSD, estimated: progress.estimatedCostUSD, finished: progress.state.isFinished)])
            if let audio = Self.audioText(speech: progress.speechSeconds, paid: progress.paidSeconds) { summary.add(["audio", audio]) }
            summary.add(["speakers", Self.speakersText(speakers, setting: speakerSetting, finished: progress.state.isFinished)])
            summary.add(["priority", progress.priority.name + (progress.focusChapter.map { ", listening at chapter \($0)" } ?? "")])
            summary.add(["created", HumanFormat.timestamp(progress.createdAt)])
            if let finishedAt = progress.finishedAt { summary.add(["finished", HumanFormat.timestamp(finishedAt)]) }
            if let reason = progress.failureReason { summary.add(["failure", reason]) }
            for hold in holds { summary.add(["waiting", hold.message]) }
            print(summary.render().split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
            guard !chapters.isEmpty else { return }
            print("")
            var table = TextTable(
                ["#", "chapter", "stage", "done", "chunks", "attempts", "speech", "paid", "cost", "failure"], rightAligned: [0, 3, 5, 6, 7, 8])
            for chapter in chapters {
                table.add([
                    String(chapter.number), HumanFormat.truncate(chapter.title ?? "-", to: 30), chapter.stage.rawValue,
                    HumanFormat.percent(chapter.percent), "\(chapter.chunksDone)/\(chapter.chunks)", String(chapter.attempts),
                    chapter.speechSeconds.map { HumanFormat.duration($0) } ?? "-", HumanFormat.duration(chapter.paidSeconds),
                    HumanFormat.money(chapter.costUSD), chapter.failureReason ?? "",
                ])
            }
            print(table.render())
        }

        /// "speech 27 s, paid 33 s (1.2x the speech)": what was said beside what was billed.
        static func speakersText(_ speakers: [AdminStore.SpeakerRecord], setting: (detection: Bool, count: SpeakerCount), finished: Bool) -> String {
            guard setting.detection else { return "off for this media (--speakers off)" }
            let asked = setting.count == .automatic ? "" : " (asked: \(setting.count.text))"
            guard !speakers.isEmpty else {
                return (finished ? "none found" : "told apart as chapters finish") + asked
            }
            let list = speakers.map { "\(TerminalText.safe($0.label)) \(HumanFormat.duration($0.talkSeconds))" }.joined(separator: ", ")
            return "\(speakers.count): \(list)\(asked)"
        }

        static func audioText(speech: Double?, paid: Double) -> String? {
            guard let speech else { return paid > 0 ? "paid \(HumanFormat.duration(paid)) (speech not measured)" : nil }
            var text = "speech \(HumanFormat.duration(speech)), paid \(HumanFormat.duration(paid))"
            if speech > 0, paid > 0 { text += String(format: " (%.2fx the speech)", paid / speech) }
            return text
        }

        private func costText(spent: Double, estimated: Double?, finished: Bool) -> String {
            guard !finished, let estimated, estimated > spent else { return HumanFormat.money(spent) }
            return "\(HumanFormat.money(spent)) so far, about \(HumanFormat.money(estimated)) in all"
        }

        private func showActive(store: AdminStore) async throws {
            let counts = try await store.mediaCountsByState()
            let active = try await store.list(AdminStore.MediaFilter(states: MediaState.active, limit: 1000))
            if json {
                try JSONOutput.print(Overview(countsByState: Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) }), active: active))
                return
            }
            let line = MediaState.allCases.map { "\(counts[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", ")
            print("media: \(line)")
            guard !active.isEmpty else {
                print("Nothing in progress.")
                return
            }
            print("")
            print(MediaTable.render(active))
        }
    }
}

/// The one-line-per-media table of `steno status` and `steno list`.
enum MediaTable {
    static func render(_ media: [MediaProgress]) -> String {
        var table = TextTable(["id", "state", "stage", "done", "chapters", "cost", "created", "title"], rightAligned: [0, 3, 5])
        for item in media {
            table.add([
                String(item.mediaID), item.state.rawValue, item.stage.rawValue, HumanFormat.percent(item.percent),
                item.chapters > 0 ? "\(item.chaptersDone)/\(item.chapters)" : "-", HumanFormat.money(item.costUSD),
                HumanFormat.timestamp(item.createdAt), HumanFormat.truncate(item.displayName, to: 50),
            ])
        }
        return table.render()
    }
}
