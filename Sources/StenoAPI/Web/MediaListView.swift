import StenoCore

/// The media list: the tenant's media newest first, with the filter form as it was sent.
struct MediaListView: Sendable {
    struct Choice: Sendable {
        var value: String
        var label: String
        var selected: Bool
    }

    var chrome: WebChrome
    var media: [MediaRow]
    var hasMedia: Bool
    var states: [Choice]
    var priorities: [Choice]
    var since: String
    var text: String
    var filtered: Bool
    var olderLink: String?
    var tenant: String
}
