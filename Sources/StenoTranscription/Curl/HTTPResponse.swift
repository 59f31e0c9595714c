/// A backend's answer, whatever its status.
struct HTTPResponse: Sendable {
    var status: Int
    /// Header names in lower case; the last value wins when a header repeats.
    var headers: [String: String]
    var body: [UInt8]

    func header(_ name: String) -> String? { headers[name.lowercased()] }
}
