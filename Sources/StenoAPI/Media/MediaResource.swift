import Foundation
import StenoCore

/// `GET /v1/media/{id}`: the media's progress, its chapters, what holds it up, and its failure
/// with what to do about it.
struct MediaResource: Encodable, Sendable {
    struct Failure: Encodable, Sendable {
        var errorClass: String
        var message: String?
        var explanation: String
        var remedy: String
    }

    var media: MediaProgress
    var chapters: [ChapterProgress]
    var holds: [MediaHold]
    var failure: Failure?

    init(media: MediaProgress, chapters: [ChapterProgress], holds: [MediaHold]) {
        self.media = media
        self.chapters = chapters
        self.holds = holds
        if let name = media.errorClass {
            let failureClass = FailureClass(rawValue: name)
            failure = Failure(
                errorClass: name, message: media.errorMessage, explanation: FailureClass.explain(name),
                remedy: (failureClass?.remedy ?? "see the message").replacingOccurrences(of: "`steno retry`", with: "POST /v1/media/\(media.mediaID)/retry"))
        }
    }
}

/// `GET /v1/media`: a page of media, newest first, and the cursor of the next page.
struct MediaPage: Encodable, Sendable {
    var media: [MediaProgress]
    /// Pass as `cursor` for the next page; nil on the last page.
    var nextCursor: String?
}

/// What `POST /v1/media` answers: the media as `GET /v1/media/{id}` shows it, and whether an
/// earlier request with the same `Idempotency-Key` made it.
struct SubmittedMedia: Encodable, Sendable {
    var media: MediaProgress
    var replayed: Bool
}
