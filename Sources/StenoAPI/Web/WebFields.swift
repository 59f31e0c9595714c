import Hummingbird

/// The fields of a web form's body or of a page's query string, read by hummingbird's
/// `URLEncodedFormDecoder`: `+` for a space, `%XX` for a byte of UTF-8. A name given twice, or an
/// escape that is not one, is refused with 400 rather than guessed at; the answer does not echo
/// the text, which for the sign-in form holds a key.
struct WebFields: Sendable, Equatable {
    private let values: [String: String]

    init(_ text: String, from source: Source) throws {
        guard !text.isEmpty else {
            values = [:]
            return
        }
        do {
            values = try URLEncodedFormDecoder().decode([String: String].self, from: text)
        } catch {
            throw APIError.badRequest(
                "the \(source.rawValue) could not be read: a field is given twice, or has a % that is not followed by two hex digits",
                hint: source == .form ? "send the page's form as the browser does" : "fix the address, or follow the link from the page again")
        }
    }

    enum Source: String, Sendable {
        case form
        case query = "address's query"
    }

    subscript(_ name: String) -> String? { values[name] }
}
