import Foundation
import HTTPTypes
import StenoCore
import StenoInfrastructure
import StenoStore

/// Follows one media for a waiting transcription request: woken by the hub's events for the
/// media (and every keepalive, when it reads the progress itself, in case a notice was missed),
/// until the media finishes or the deadline passes.
struct TranscriptionFollower: Sendable {
    let store: AdminStore
    let mediaID: Int64
    let subscription: ProgressHub.Subscription
    let deadline: ContinuousClock.Instant
    /// The server's clock, which the deadline is on.
    let clock: any MonotonicClock

    /// The transcript once the media succeeded; an `APIError` when it failed, was cancelled or
    /// took longer than the deadline.
    func waitForTranscript() async throws -> Transcript {
        try await followChapters { _ in }
    }

    /// Calls `delta` with each chapter's text in order, as soon as it and every chapter before
    /// it are transcribed, and returns the whole transcript at the end.
    func followChapters(_ delta: (String) async throws -> Void) async throws -> Transcript {
        var sent = 0
        var progress = try await store.progress(of: mediaID)
        // The hub's keepalive wakes this loop every 15 s at the latest, so the deadline is
        // checked without a timer of its own.
        var events = subscription.events.makeAsyncIterator()
        while true {
            if progress.chaptersDone > sent {
                sent = try await sendReadyChapters(after: sent, delta)
            }
            if progress.state.isFinished { break }
            guard clock.now < deadline else {
                throw APIError(
                    .gatewayTimeout, code: "transcription_timeout",
                    "the fleet has not finished media \(mediaID) yet; it goes on",
                    hint: "GET /v1/media/\(mediaID) follows it and GET /v1/media/\(mediaID)/transcript fetches the result")
            }
            guard let event = await events.next() else {
                throw APIError(
                    .serviceUnavailable, code: "shutting_down", "the server is stopping; media \(mediaID) goes on",
                    hint: "GET /v1/media/\(mediaID) follows it and GET /v1/media/\(mediaID)/transcript fetches the result", retryAfter: 1)
            }
            switch event {
            case let .progress(changed) where changed.mediaID == mediaID:
                progress = changed
            case .progress:
                continue
            case .resync, .keepalive:
                progress = try await store.progress(of: mediaID)
            }
        }
        switch progress.state {
        case .succeeded:
            let transcript = try await transcript(chapter: nil, duration: progress.durationSeconds)
            if sent < transcript.chapters.count {
                for chapter in transcript.chapters[sent...] {
                    let text = OpenAITranscriptionFormat.text(of: chapter)
                    if !text.isEmpty { try await delta(sent == 0 ? text : " " + text) }
                    sent += 1
                }
            }
            return transcript
        case .cancelled:
            throw APIError(.conflict, code: "transcription_cancelled", "media \(mediaID) was cancelled before it was transcribed",
                hint: "POST /v1/media/\(mediaID)/retry resumes it")
        default:
            throw APIError(
                .internalServerError, code: "transcription_failed",
                "the fleet could not transcribe media \(mediaID): \(progress.failureReason ?? "it failed")",
                hint: "GET /v1/media/\(mediaID) says what to do; POST /v1/media/\(mediaID)/retry runs what failed again")
        }
    }

    /// A media or chapter with no speech has no segments: its transcript is empty, not an error.
    private func transcript(chapter: Int?, duration: Double?) async throws -> Transcript {
        do {
            return try await store.transcript(mediaID: mediaID, chapter: chapter)
        } catch let error as AdminError where error.code == .noTranscript {
            return Transcript(mediaID: mediaID, title: nil, source: "", language: nil, durationSeconds: duration, chapters: [])
        }
    }

    /// Sends the chapters after `sent` that are done, stopping at the first that is not.
    private func sendReadyChapters(after sent: Int, _ delta: (String) async throws -> Void) async throws -> Int {
        var count = sent
        let chapters = try await store.chapterProgress(of: mediaID)
        for chapter in chapters.dropFirst(sent) {
            guard chapter.state == .succeeded else { break }
            let transcript = try await transcript(chapter: chapter.number, duration: nil)
            if let text = transcript.chapters.first.map(OpenAITranscriptionFormat.text(of:)), !text.isEmpty {
                try await delta(count == 0 ? text : " " + text)
            }
            count += 1
        }
        return count
    }
}
