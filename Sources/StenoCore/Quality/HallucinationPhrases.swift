/// Phrases Whisper-family models are known to write over music, noise and silence, collected
/// from users' reports (subtitle credits, video outros, filler). Compared after `normalized`:
/// lower case, letters, digits and apostrophes, single spaces.
public enum HallucinationPhrases {
    public static let english: Set<String> = Set([
        "you", "thank you", "thank you.", "thanks", "thanks for watching", "thank you for watching", "thank you so much for watching",
        "thank you very much for watching", "thanks for watching and see you next time", "thank you for watching and see you next time",
        "please subscribe", "please subscribe to my channel", "subscribe to my channel", "like and subscribe",
        "don't forget to like and subscribe", "please like and subscribe", "thanks for listening", "thank you for listening",
        "see you next time", "see you in the next video", "i'll see you in the next video", "bye", "bye bye", "goodbye",
        "thank you very much", "thank you so much", "so", "okay", "oh", "uh", "um", "hmm", "mm", "ah",
        "subtitles by the amara org community", "subtitles by the amara.org community", "subtitles by", "transcription by castingwords",
        "transcribed by", "captions by", "captioning by", "subtitled by", "translated by", "english subtitles",
        "the end", "music", "applause", "laughter", "silence", "foreign", "background music", "upbeat music", "soft music",
        "dramatic music", "gentle music", "instrumental music", "music playing", "indistinct chatter", "inaudible",
        "i'm sorry", "i don't know", "what", "yeah", "yes", "no", "hey", "hello", "hi",
        "we'll be right back", "we'll see you next time", "thank you for your attention", "thanks for your attention",
        "www mooji org", "please visit our website", "for more information visit", "copyright", "all rights reserved",
    ].map(normalized))

    /// Lower case; letters, digits and apostrophes kept, everything else a space; spaces single.
    public static func normalized(_ text: String) -> String {
        let mapped = text.lowercased().unicodeScalars.map { scalar -> Character in
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "'" || scalar == "’" ? Character(scalar == "’" ? "'" : scalar) : " "
        }
        return String(mapped).split(separator: " ").joined(separator: " ")
    }

    public static func contains(_ text: String) -> Bool {
        let key = normalized(text)
        return !key.isEmpty && english.contains(key)
    }
}
