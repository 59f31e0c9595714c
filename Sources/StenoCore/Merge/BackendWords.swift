import Foundation

/// A backend's timed words made whole before they are stored: pieces joined, punctuation kept.
///
/// Backends render words in different ways. faster-whisper and speaches give each word with its
/// leading space and punctuation (" Hello,"), and a piece without a leading space continues the
/// word before it (" 9" ",000", " twenty" "-four"). OpenAI's whisper-1 gives bare words
/// ("Hello") and keeps punctuation and capitals only in `text`.
public enum BackendWords {
    /// The words as stored: pieces joined to the word they continue, then punctuation and
    /// capitals taken from `text` when the words themselves carry none.
    public static func normalized(_ raw: [(word: String, start: Double, end: Double)], text: String) -> [TimedWord] {
        punctuated(joined(raw), text: text)
    }

    /// Joins a piece that has no leading space to the word before it, when the backend marks
    /// word starts with spaces (most words after the first start with one); bare words are
    /// left alone.
    public static func joined(_ raw: [(word: String, start: Double, end: Double)]) -> [TimedWord] {
        let marked = raw.dropFirst().filter { $0.word.first?.isWhitespace == true }.count
        let marksStarts = raw.count > 1 && marked * 2 > raw.count - 1
        var words: [TimedWord] = []
        for piece in raw {
            let text = piece.word.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { continue }
            if marksStarts, piece.word.first?.isWhitespace == false, var previous = words.popLast() {
                previous.word += text
                previous.end = max(previous.end, piece.end)
                words.append(previous)
            } else {
                words.append(TimedWord(word: text, start: piece.start, end: piece.end))
            }
        }
        return words
    }

    /// Gives bare words the punctuation and capitals of the backend's `text`, matching each
    /// word to the next token of the text that reads the same (letters and digits, any case),
    /// a few tokens ahead at most; a word without a match keeps its own form. Bare words that
    /// together spell one token ("9" "000" for "9,000", "o" "clock" for "o'clock") become that
    /// one word, from the first one's start to the last one's end.
    public static func punctuated(_ words: [TimedWord], text: String) -> [TimedWord] {
        // Punctuation that ends a word, not an apostrophe or hyphen inside one ("didn't").
        let carriesPunctuation = words.contains { $0.word.last.map { ".,?!;:\"”»)".contains($0) } ?? false }
        let tokens = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard !carriesPunctuation, tokens.contains(where: { $0.contains(where: { $0.isPunctuation }) }) else { return words }
        let spelled = tokens.map(TranscriptMerger.normalized)
        let lookahead = 4
        let longestSplit = 4
        var next = 0
        var result: [TimedWord] = []
        var index = 0
        while index < words.count {
            var word = words[index]
            index += 1
            let bare = TranscriptMerger.normalized(word.word)
            guard !bare.isEmpty else {
                result.append(word)
                continue
            }
            for candidate in tokens.indices.dropFirst(next).prefix(lookahead) where spelled[candidate].hasPrefix(bare) {
                // The word alone, or with the next few bare words, spells the token.
                var joined = bare
                var last = index - 1
                while joined.count < spelled[candidate].count, last + 1 < words.count, last + 1 - index < longestSplit {
                    let following = TranscriptMerger.normalized(words[last + 1].word)
                    guard !following.isEmpty, spelled[candidate].hasPrefix(joined + following) else { break }
                    joined += following
                    last += 1
                }
                guard joined == spelled[candidate] else { continue }
                word = TimedWord(word: tokens[candidate], start: word.start, end: max(word.end, words[last].end))
                index = last + 1
                next = candidate + 1
                break
            }
            result.append(word)
        }
        return result
    }
}
