import Foundation

/// The parts of S3's XML answers Steno reads: an element's text (`UploadId`, an error's
/// `Code`), and the children of each repeated element (each `Upload` of a listing).
///
/// Read by hand rather than with FoundationXML: that module links libxml2, which Debian builds
/// with ICU, and the runtime image would carry both (about 36 MB) for a handful of flat
/// elements. S3's answers are flat where Steno reads them: an element holds text, or elements
/// that hold text.
struct S3XML {
    /// Each element's name and text (empty for one that holds elements), in document order.
    private(set) var elements: [(name: String, text: String)] = []
    /// Each element's children's texts.
    private(set) var records: [(name: String, children: [String: String])] = []

    init?(_ body: [UInt8]) {
        let text = String(decoding: body, as: UTF8.self)
        guard text.contains("<") else { return nil }
        var stack: [(name: String, text: String, children: [String: String])] = []
        var index = text.startIndex
        while let open = text[index...].firstIndex(of: "<") {
            if let top = stack.indices.last { stack[top].text += text[index..<open] }
            guard let close = text[open...].firstIndex(of: ">") else { return nil }
            let tag = text[text.index(after: open)..<close]
            index = text.index(after: close)
            if tag.hasPrefix("?") || tag.hasPrefix("!") { continue }
            if tag.hasPrefix("/") {
                guard let element = stack.popLast(), element.name == tag.dropFirst() else { return nil }
                let value = Self.unescaped(element.text.trimmingCharacters(in: .whitespacesAndNewlines))
                elements.append((element.name, element.children.isEmpty ? value : ""))
                records.append((element.name, element.children))
                if let top = stack.indices.last { stack[top].children[element.name] = value }
                continue
            }
            let name = String(tag.prefix { $0 != " " && $0 != "/" })
            if tag.hasSuffix("/") {
                elements.append((name, ""))
                if let top = stack.indices.last { stack[top].children[name] = "" }
            } else {
                stack.append((name, "", [:]))
            }
        }
        guard stack.isEmpty else { return nil }
    }

    func first(_ name: String) -> String? {
        elements.first { $0.name == name }?.text
    }

    func records(_ name: String) -> [[String: String]] {
        records.filter { $0.name == name }.map(\.children)
    }

    static func unescaped(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&#34;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
    }
}
