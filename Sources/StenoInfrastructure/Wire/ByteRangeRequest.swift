import Foundation

/// What an HTTP `Range` header asks of a file of `size` bytes (RFC 9110, section 14): the
/// reader's audio player asks for the part it plays, so that seeking in a 40-hour book fetches
/// a few hundred kilobytes, not the book.
///
/// One range is served as 206. A header that is not a byte range, or asks for several ranges,
/// is ignored and the whole file served (RFC 9110 allows both); a range that starts past the
/// end is 416.
public enum ByteRangeRequest: Sendable, Equatable {
    case whole
    case part(ClosedRange<Int64>)
    case unsatisfiable

    public init(header: String?, size: Int64) {
        guard let header else {
            self = .whole
            return
        }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes="), size >= 0 else {
            self = .whole
            return
        }
        let spec = trimmed.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else {
            self = .whole
            return
        }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        let digits = { (text: String) in !text.isEmpty && text.allSatisfy(\.isASCII) && text.allSatisfy(\.isNumber) }
        switch (first.isEmpty, last.isEmpty) {
        case (true, false):
            // `bytes=-500`: the last 500 bytes.
            guard digits(last), let suffix = Int64(last) else {
                self = .whole
                return
            }
            guard suffix > 0, size > 0 else {
                self = .unsatisfiable
                return
            }
            self = .part(max(0, size - suffix)...(size - 1))
        case (false, _):
            guard digits(first), let start = Int64(first) else {
                self = .whole
                return
            }
            var end = size - 1
            if !last.isEmpty {
                guard digits(last), let asked = Int64(last), asked >= start else {
                    self = .whole
                    return
                }
                end = min(asked, size - 1)
            }
            guard start < size else {
                self = .unsatisfiable
                return
            }
            self = .part(start...end)
        case (true, true):
            self = .whole
        }
    }

    /// `bytes 0-499/1234`, the `Content-Range` of a part.
    public static func contentRange(_ range: ClosedRange<Int64>, size: Int64) -> String {
        "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
    }
}
