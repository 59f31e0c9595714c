import Foundation
import StenoCore
import StenoInfrastructure

/// The media page: its progress and facts, why it waits or failed, its chapters, and what an
/// admin key may do to it.
struct MediaView: Sendable {
    struct Fact: Sendable {
        var label: String
        var value: String
    }

    struct Failure: Sendable {
        var errorClass: String
        var explanation: String
        var remedy: String
        var message: String?
    }

    struct Chapter: Sendable {
        var number: Int
        var heading: String
        var state: String
        var stage: String
        var percent: String
        var percentValue: Int
        var span: String
        var speech: String
        var paid: String
        var failure: String?
        var readLink: String?
        var canFocus: Bool
        var focusAction: String
        var focusLabel: String
    }

    struct Download: Sendable {
        var label: String
        var link: String
    }

    /// An attempt that did not succeed, as the history table shows it.
    struct Attempt: Sendable {
        var when: String
        var job: String
        var attempt: Int
        var worker: String
        var outcome: String
        var errorClass: String?
        var message: String?
    }

    var chrome: WebChrome
    var media: MediaRow
    var facts: [Fact]
    var holds: [String]
    var hasHolds: Bool
    var failure: Failure?
    var chapters: [Chapter]
    var hasChapters: Bool
    var readLink: String?
    var downloads: [Download]
    var hasDownloads: Bool
    var cancelLink: String?
    var retryLink: String?
    var deleteLink: String?
    var canAct: Bool
    var attempts: [Attempt]
    var hasAttempts: Bool

    init(
        media progress: MediaProgress, chapters: [ChapterProgress], holds: [MediaHold], attempts: [MediaAttempt], chrome: WebChrome
    ) {
        let redactor = SecretRedactor()
        self.attempts = attempts.map { attempt in
            Attempt(
                when: WebPages.date(attempt.finishedAt ?? attempt.startedAt), job: attempt.job, attempt: attempt.attempt, worker: attempt.worker,
                outcome: attempt.outcome.map { $0.rawValue.replacingOccurrences(of: "_", with: " ") } ?? "running",
                errorClass: attempt.errorClass,
                message: (attempt.message.map { redactor.redact($0) }).map { message in
                    attempt.httpStatus.map { "HTTP \($0): " + message } ?? message
                })
        }
        hasAttempts = !attempts.isEmpty
        self.chrome = chrome
        let media = MediaRow(progress)
        self.media = media
        let id = progress.mediaID
        var facts = [
            Fact(label: "Source", value: progress.source),
            Fact(label: "Language", value: progress.languageText),
            Fact(label: "State", value: progress.state.rawValue + (progress.state.isFinished ? "" : " (\(progress.stage.rawValue))")),
            Fact(label: "Duration", value: HumanFormat.duration(progress.durationSeconds)),
            Fact(label: "Priority", value: progress.priority.name),
            Fact(label: "Chapters", value: "\(progress.chaptersDone) of \(progress.chapters) done" + (progress.chaptersFailed > 0 ? ", \(progress.chaptersFailed) failed" : "")),
            Fact(label: "Chunks", value: "\(progress.chunksDone) of \(progress.chunks) done" + (progress.chunksFailed > 0 ? ", \(progress.chunksFailed) failed" : "")),
            Fact(label: "Speech", value: progress.speechSeconds.map { HumanFormat.duration($0) } ?? "-"),
            Fact(label: "Paid audio", value: HumanFormat.duration(progress.paidSeconds)),
            Fact(label: "Cost", value: HumanFormat.money(progress.costUSD) + (progress.state.isFinished ? "" : " so far, about \(HumanFormat.money(progress.estimatedCostUSD)) in all")),
            Fact(label: "Attempts", value: "\(progress.attempts)"),
            Fact(label: "Created", value: WebPages.date(progress.createdAt)),
        ]
        if progress.finishedAt != nil { facts.append(Fact(label: "Finished", value: WebPages.date(progress.finishedAt))) }
        if progress.chapterSelection != "all" { facts.append(Fact(label: "Chapters chosen", value: progress.chapterSelection)) }
        self.facts = facts
        self.holds = holds.map(\.message)
        hasHolds = !holds.isEmpty
        failure = progress.errorClass.map { name in
            let failureClass = FailureClass(rawValue: name)
            return Failure(
                errorClass: name, explanation: FailureClass.explain(name),
                remedy: WebPages.hint(failureClass?.remedy ?? "see the message"),
                message: progress.errorMessage.map { SecretRedactor().redact($0) })
        }
        let canAct = chrome.canAct
        self.canAct = canAct
        self.chapters = chapters.map { chapter in
            let heading = chapter.title.map { "Chapter \(chapter.number): \($0)" } ?? "Chapter \(chapter.number)"
            let focusable = canAct && !chapter.state.isFinished && !progress.state.isFinished && progress.focusChapter != chapter.number
            return Chapter(
                number: chapter.number, heading: heading, state: chapter.state.rawValue, stage: chapter.stage.rawValue,
                percent: HumanFormat.percent(chapter.percent), percentValue: Int(chapter.percent.rounded()),
                span: "\(HumanFormat.duration(chapter.startSeconds))–\(HumanFormat.duration(chapter.endSeconds))",
                speech: chapter.speechSeconds.map { HumanFormat.duration($0) } ?? "-",
                paid: HumanFormat.duration(chapter.paidSeconds),
                failure: chapter.failureReason,
                readLink: chapter.state == .succeeded ? "/media/\(id)/read?chapter=\(chapter.number)" : nil,
                canFocus: focusable, focusAction: "/media/\(id)/focus", focusLabel: "Transcribe \(heading) first")
        }
        hasChapters = !chapters.isEmpty
        let readable = chapters.contains { $0.state == .succeeded }
        readLink = readable ? "/media/\(id)/read" : nil
        downloads = readable
            ? TranscriptFormat.allCases.map { Download(label: $0.rawValue, link: "/media/\(id)/download?format=\($0.rawValue)") }
            : []
        hasDownloads = !downloads.isEmpty
        cancelLink = canAct && !progress.state.isFinished ? "/confirm?action=cancel&media=\(id)" : nil
        retryLink = canAct && (progress.state == .failed || progress.state == .cancelled) ? "/confirm?action=retry&media=\(id)" : nil
        deleteLink = canAct ? "/confirm?action=delete&media=\(id)" : nil
    }
}
