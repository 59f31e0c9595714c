import Foundation

/// A pronunciation for a word the dictionary lacks (names, coinages, other languages' words),
/// read from its spelling by English letter rules, in the acoustic model's phones (CMU
/// ARPAbet without stress).
///
/// The aligner needs a word's sounds only roughly: its consonants and the number of its
/// syllables decide where the word sits in the audio, and the words around it, which the
/// dictionary knows, hold it in place. So a few dozen rules, longest spelling first, serve;
/// a trained letter-to-sound model would spell "Kingsford" no differently where it matters.
enum SpellingPronunciation {
    /// The phones for `word`, or nil when no letter of it maps to a phone (a word in another
    /// script): the aligner then skips that word.
    static func phones(_ word: String) -> String? {
        let letters = Array(word.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil).lowercased().filter { $0.isASCII && $0.isLetter })
        guard !letters.isEmpty else { return nil }
        var phones: [String] = []
        var index = 0
        while index < letters.count {
            let rest = letters[index...]
            if let (length, sound) = rule(rest, at: index, in: letters) {
                // A doubled consonant ("ll", "tt") is one sound.
                if let last = phones.last, sound.count == 1, sound[0] == last, !vowels.contains(last) {
                    index += length
                    continue
                }
                phones += sound
                index += length
            } else {
                index += 1
            }
        }
        return phones.isEmpty ? nil : phones.joined(separator: " ")
    }

    static let vowels: Set<String> = ["AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW"]

    /// Spellings of more than one letter, longest first.
    static let groups: [(String, [String])] = [
        ("tch", ["CH"]), ("sch", ["SH"]), ("igh", ["AY"]),
        ("ch", ["CH"]), ("sh", ["SH"]), ("th", ["TH"]), ("ph", ["F"]), ("ng", ["NG"]), ("ck", ["K"]), ("qu", ["K", "W"]),
        ("wh", ["W"]), ("gh", ["G"]), ("ee", ["IY"]), ("ea", ["IY"]), ("oo", ["UW"]), ("ou", ["AW"]), ("ow", ["OW"]),
        ("oi", ["OY"]), ("oy", ["OY"]), ("ai", ["EY"]), ("ay", ["EY"]), ("ei", ["EY"]), ("ey", ["EY"]), ("au", ["AO"]),
        ("aw", ["AO"]), ("ie", ["IY"]), ("er", ["ER"]), ("ir", ["ER"]), ("ur", ["ER"]), ("ar", ["AA", "R"]), ("or", ["AO", "R"]),
    ]

    static let single: [Character: [String]] = [
        "a": ["AE"], "b": ["B"], "d": ["D"], "e": ["EH"], "f": ["F"], "g": ["G"], "h": ["HH"], "i": ["IH"], "j": ["JH"],
        "k": ["K"], "l": ["L"], "m": ["M"], "n": ["N"], "o": ["AA"], "p": ["P"], "q": ["K"], "r": ["R"], "s": ["S"],
        "t": ["T"], "u": ["AH"], "v": ["V"], "w": ["W"], "x": ["K", "S"], "z": ["Z"],
    ]

    private static func rule(_ rest: ArraySlice<Character>, at index: Int, in letters: [Character]) -> (Int, [String])? {
        for (spelling, sound) in groups where rest.starts(with: spelling) {
            return (spelling.count, sound)
        }
        let letter = rest.first!
        let next = rest.dropFirst().first
        switch letter {
        case "c":
            return (1, next.map { "eiy".contains($0) } == true ? ["S"] : ["K"])
        case "y":
            return (1, index == 0 ? ["Y"] : ["IY"])
        case "e" where index == letters.count - 1 && letters.count > 2:
            // A final e is silent ("grove", "Ashbourne").
            return (1, [])
        default:
            return single[letter].map { (1, $0) }
        }
    }
}
