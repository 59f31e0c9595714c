import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The parts of S3's XML answers Steno reads: an element's text (`UploadId`, an error's
/// `Code`), and the children of each repeated element (each `Upload` of a listing), read with
/// Foundation's XMLParser.
struct S3XML {
    /// Each element's name and text, in document order.
    private(set) var elements: [(name: String, text: String)] = []
    /// For each element, the texts of its child elements.
    private(set) var records: [(name: String, children: [String: String])] = []

    init?(_ body: [UInt8]) {
        let reader = Reader()
        let parser = XMLParser(data: Data(body))
        parser.delegate = reader
        guard parser.parse() else { return nil }
        elements = reader.elements
        records = reader.records
    }

    func first(_ name: String) -> String? {
        elements.first { $0.name == name }?.text
    }

    func records(_ name: String) -> [[String: String]] {
        records.filter { $0.name == name }.map(\.children)
    }

    private final class Reader: NSObject, XMLParserDelegate {
        var elements: [(name: String, text: String)] = []
        var records: [(name: String, children: [String: String])] = []
        private var stack: [(name: String, text: String, children: [String: String])] = []

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            stack.append((elementName, "", [:]))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard !stack.isEmpty else { return }
            stack[stack.count - 1].text += string
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            guard let element = stack.popLast() else { return }
            let text = element.text.trimmingCharacters(in: .whitespacesAndNewlines)
            elements.append((element.name, text))
            records.append((element.name, element.children))
            if !stack.isEmpty { stack[stack.count - 1].children[element.name] = text }
        }
    }
}
