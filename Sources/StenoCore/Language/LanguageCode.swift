import Foundation

/// A spoken language as an ISO 639 code, from what a backend or a user says.
///
/// Backends name the language they detected in different ways: OpenAI's `verbose_json` and
/// whisper.cpp spell it out (`english`), faster-whisper servers give the code (`en`), some add
/// a region (`en-US`). Steno keeps the base code, which is what a request's `language` takes.
public enum LanguageCode {
    /// The ISO 639-1 code (or 639-3 where Whisper uses one, `haw`, `yue`) of `reported`, or nil
    /// when it names no language Steno knows.
    public static func normalized(_ reported: String) -> String? {
        let lowered = reported.trimmingCharacters(in: .whitespaces).lowercased()
        guard !lowered.isEmpty else { return nil }
        if let code = byName[lowered] { return code }
        let base = String(lowered.split(whereSeparator: { $0 == "-" || $0 == "_" }).first ?? "")
        if names[base] != nil { return base }
        return nil
    }

    /// The language spelled out as OpenAI's `verbose_json` names it (`english` for `en`), or nil
    /// for a code Whisper does not know.
    public static func spelledOut(_ code: String) -> String? {
        normalized(code).flatMap { names[$0] }
    }

    /// Whisper's languages (its tokenizer's table), by code.
    static let names: [String: String] = [
        "en": "english", "zh": "chinese", "de": "german", "es": "spanish", "ru": "russian", "ko": "korean",
        "fr": "french", "ja": "japanese", "pt": "portuguese", "tr": "turkish", "pl": "polish", "ca": "catalan",
        "nl": "dutch", "ar": "arabic", "sv": "swedish", "it": "italian", "id": "indonesian", "hi": "hindi",
        "fi": "finnish", "vi": "vietnamese", "he": "hebrew", "uk": "ukrainian", "el": "greek", "ms": "malay",
        "cs": "czech", "ro": "romanian", "da": "danish", "hu": "hungarian", "ta": "tamil", "no": "norwegian",
        "th": "thai", "ur": "urdu", "hr": "croatian", "bg": "bulgarian", "lt": "lithuanian", "la": "latin",
        "mi": "maori", "ml": "malayalam", "cy": "welsh", "sk": "slovak", "te": "telugu", "fa": "persian",
        "lv": "latvian", "bn": "bengali", "sr": "serbian", "az": "azerbaijani", "sl": "slovenian", "kn": "kannada",
        "et": "estonian", "mk": "macedonian", "br": "breton", "eu": "basque", "is": "icelandic", "hy": "armenian",
        "ne": "nepali", "mn": "mongolian", "bs": "bosnian", "kk": "kazakh", "sq": "albanian", "sw": "swahili",
        "gl": "galician", "mr": "marathi", "pa": "punjabi", "si": "sinhala", "km": "khmer", "sn": "shona",
        "yo": "yoruba", "so": "somali", "af": "afrikaans", "oc": "occitan", "ka": "georgian", "be": "belarusian",
        "tg": "tajik", "sd": "sindhi", "gu": "gujarati", "am": "amharic", "yi": "yiddish", "lo": "lao",
        "uz": "uzbek", "fo": "faroese", "ht": "haitian creole", "ps": "pashto", "tk": "turkmen", "nn": "nynorsk",
        "mt": "maltese", "sa": "sanskrit", "lb": "luxembourgish", "my": "myanmar", "bo": "tibetan", "tl": "tagalog",
        "mg": "malagasy", "as": "assamese", "tt": "tatar", "haw": "hawaiian", "ln": "lingala", "ha": "hausa",
        "ba": "bashkir", "jw": "javanese", "su": "sundanese", "yue": "cantonese", "nb": "norwegian bokmål",
    ]

    /// Names and the other spellings Whisper accepts for them.
    static let byName: [String: String] = {
        var table = Dictionary(names.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        for (alias, code) in [
            ("burmese", "my"), ("valencian", "ca"), ("flemish", "nl"), ("haitian", "ht"), ("letzeburgesch", "lb"),
            ("pushto", "ps"), ("panjabi", "pa"), ("moldavian", "ro"), ("moldovan", "ro"), ("sinhalese", "si"),
            ("castilian", "es"), ("mandarin", "zh"), ("norwegian", "no"),
        ] { table[alias] = code }
        return table
    }()
}
