/// The reader's list items, written straight to a string: a window holds hundreds of segments
/// and thousands of word spans, and swift-mustache's reflection took about 100 ms for the 4,400
/// spans of a 400-segment window (bench/web); this writes them in a few. Every text is escaped
/// here, as the templates escape theirs.
enum SegmentListHTML {
    static func render(_ segments: [ReaderView.Segment]) -> String {
        var html = ""
        html.reserveCapacity(segments.count * 700)
        var previousSpeaker: Int?
        for segment in segments {
            html += "<li id=\"\(segment.anchor)\" class=\"segment\(segment.flagged ? " flagged" : "")\" data-start=\"\(segment.start)\" data-end=\"\(segment.end)\""
            html += segment.speaker.map { " data-speaker=\"\($0)\">" } ?? ">"
            html += "<a class=\"time\" href=\""
            escape(segment.link, into: &html)
            html += "\" aria-label=\"Play from \(segment.clock)\">\(segment.clock)</a> <span class=\"text\">"
            if let speaker = segment.speaker {
                // The name where the turn changes; every line carries its speaker's colour.
                html += "<span class=\"speaker spk-\(ReaderView.colour(of: speaker))\(speaker == previousSpeaker ? " repeat" : "")\">"
                escape(segment.speakerName ?? "", into: &html)
                html += "</span> "
            }
            previousSpeaker = segment.speaker
            if let words = segment.words {
                for word in words {
                    html += "<span class=\"w\" data-start=\"\(word.start)\" data-end=\"\(word.end)\">"
                    escape(word.text, into: &html)
                    html += "</span> "
                }
            } else {
                escape(segment.text, into: &html)
            }
            html += "</span>"
            if segment.flagged {
                html += " <span class=\"flag\" title=\""
                escape(segment.flagExplanation ?? "", into: &html)
                html += "\">flagged: "
                escape(segment.flagLabel ?? "", into: &html)
                html += "</span>"
            }
            html += "</li>\n"
        }
        return html
    }

    /// HTML text and attribute values: the five characters that could end either.
    static func escape(_ text: String, into html: inout String) {
        for character in text.unicodeScalars {
            switch character {
            case "&": html += "&amp;"
            case "<": html += "&lt;"
            case ">": html += "&gt;"
            case "\"": html += "&quot;"
            case "'": html += "&#39;"
            default: html.unicodeScalars.append(character)
            }
        }
    }
}
