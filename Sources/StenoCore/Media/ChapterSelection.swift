/// Which chapters of a media to transcribe: `all`, `first`, or numbers and ranges such as `1,3-5`.
///
/// Chapters are numbered from 1, as players show them. The database stores the selection as
/// the 0-based chapter indexes (`media.chapter_selection integer[]`, NULL for all), which is what
/// the worker compares with `chapters.index`.
public enum ChapterSelection: Sendable, Equatable, CustomStringConvertible {
    case all
    /// 1-based chapter numbers, ascending, without duplicates.
    case numbers([Int])

    public static let first = ChapterSelection.numbers([1])

    /// The largest range one selection may name, so that `1-999999999` cannot exhaust memory.
    public static let maximumChapterNumber = 100_000

    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var text: String
        public var reason: String
        public var description: String { "invalid chapter selection \"\(text)\": \(reason); use all, first, or numbers and ranges such as 1,3-5" }
    }

    public init(parsing text: String) throws(ParseError) {
        let trimmed = text.trimmingSpaces()
        switch trimmed.lowercased() {
        case "all":
            self = .all
            return
        case "first":
            self = .first
            return
        case "":
            throw ParseError(text: text, reason: "it is empty")
        default:
            break
        }
        var numbers = Set<Int>()
        for part in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            let item = String(part).trimmingSpaces()
            let bounds = item.split(separator: "-", omittingEmptySubsequences: false).map { String($0).trimmingSpaces() }
            guard (1...2).contains(bounds.count), let low = Int(bounds[0]), let high = Int(bounds[bounds.count - 1]) else {
                throw ParseError(text: text, reason: "\"\(item)\" is not a chapter number or a range")
            }
            guard low >= 1 else { throw ParseError(text: text, reason: "chapters are numbered from 1") }
            guard low <= high else { throw ParseError(text: text, reason: "the range \(item) runs backwards") }
            guard high <= Self.maximumChapterNumber else {
                throw ParseError(text: text, reason: "chapter \(high) is beyond \(Self.maximumChapterNumber)")
            }
            numbers.formUnion(low...high)
        }
        self = .numbers(numbers.sorted())
    }

    /// The 0-based indexes to store, or `nil` for all chapters.
    public var storedIndexes: [Int]? {
        switch self {
        case .all: nil
        case .numbers(let numbers): numbers.map { $0 - 1 }
        }
    }

    /// The selection read back from the stored indexes.
    public init(storedIndexes: [Int]?) {
        guard let storedIndexes else {
            self = .all
            return
        }
        self = .numbers(storedIndexes.map { $0 + 1 }.sorted())
    }

    /// `all`, or the numbers with runs folded into ranges: `1,3-5`.
    public var description: String {
        guard case .numbers(let numbers) = self else { return "all" }
        var parts: [String] = []
        var index = 0
        while index < numbers.count {
            var end = index
            while end + 1 < numbers.count, numbers[end + 1] == numbers[end] + 1 { end += 1 }
            parts.append(end == index ? "\(numbers[index])" : "\(numbers[index])-\(numbers[end])")
            index = end + 1
        }
        return parts.joined(separator: ",")
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
