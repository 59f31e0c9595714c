import StenoCore

/// What every page's frame shows: who is signed in, the navigation, the form token, and a
/// notice after an action. Mustache reads stored properties only, so each is spelled out.
struct WebChrome: Sendable {
    enum Section: Sendable {
        case overview, media, search, none
    }

    var signedIn: Bool
    var keyPrefix: String
    var scope: String
    var tenant: String
    var canAct: Bool
    var csrf: String
    var atOverview: Bool
    var atMedia: Bool
    var atSearch: Bool
    var notice: String?
    var live: Bool

    init(principal: APIPrincipal?, session: WebSessionToken?, section: Section, notice: String? = nil, live: Bool = false) {
        signedIn = principal != nil
        keyPrefix = principal?.prefix ?? ""
        scope = principal?.scope.rawValue ?? ""
        tenant = principal?.tenant ?? ""
        canAct = principal?.scope.allows(.admin) ?? false
        csrf = session.map(WebCSRF.token(for:)) ?? ""
        atOverview = section == .overview
        atMedia = section == .media
        atSearch = section == .search
        self.notice = notice
        self.live = live
    }

    /// The notices an action's redirect names (`?did=cancelled`): fixed texts, so that a link
    /// cannot make the page say something of its own.
    static func notice(for code: String?) -> String? {
        switch code {
        case "cancelled": "Cancelled. Running jobs stop at their next check."
        case "retried": "Queued again: what failed or was cancelled runs again."
        case "deleted": "Deleted, with its transcript and jobs."
        case "focused": "That chapter goes first now."
        case "signed-out": "Signed out."
        case "bulk-retried": "The failed media of that class are queued again."
        case "bulk-cancelled": "The media of that class waiting to retry are cancelled."
        default: nil
        }
    }
}
