import StenoCore

/// One media as the list and the media page show it.
struct MediaRow: Sendable {
    var id: Int64
    var link: String
    var title: String
    var state: String
    var stage: String
    var priority: String
    var percent: String
    var percentValue: Int
    var chapters: String
    var duration: String
    var cost: String
    var created: String
    var finished: String
    var isFinished: Bool
    var failed: Bool
    var failure: String?

    init(_ media: MediaProgress) {
        id = media.mediaID
        link = "/media/\(media.mediaID)"
        title = WebPages.title(media.title, mediaID: media.mediaID)
        state = media.state.rawValue
        stage = media.stage.rawValue
        priority = media.priority.name
        percent = HumanFormat.percent(media.percent)
        percentValue = Int(media.percent.rounded())
        chapters = "\(media.chaptersDone)/\(media.chapters)"
        duration = HumanFormat.duration(media.durationSeconds)
        cost = HumanFormat.money(media.costUSD)
        created = WebPages.date(media.createdAt)
        finished = WebPages.date(media.finishedAt)
        isFinished = media.state.isFinished
        failed = media.state == .failed
        failure = media.failureReason
    }
}
