/// One thing an aligner listens for: a word, or a number with each way people read it.
///
/// A number has no one spoken form: "1700" is "seventeen hundred" to one reader and "one
/// thousand seven hundred" to another (flite says the second), "250" may have an "and" in it.
/// An aligner that listens for only one reading misses the number whenever the speaker chose
/// another, and the times of the words around it go with it. A unit with several readings is
/// one word to the aligner, with each reading as one of its pronunciations.
public struct SpokenUnit: Sendable, Hashable {
    /// What the aligner knows the unit by, and hears it as: the word itself, or for a number
    /// with several readings a name that no dictionary word has ("#seventeen_hundred|...").
    public var name: String
    /// How it is said, the usual reading first. A plain word has one reading of itself.
    public var readings: [[String]]

    public init(word: String) {
        name = word
        readings = [[word]]
    }

    /// Units for one number's `readings` (the usual first): a number read only one way is
    /// its words, each a unit of its own; one read several ways is one unit.
    static func units(readings: [[String]]) -> [SpokenUnit] {
        guard let usual = readings.first else { return [] }
        guard readings.count > 1 else { return usual.map(SpokenUnit.init(word:)) }
        return [SpokenUnit(name: "#" + readings.map { $0.joined(separator: "_") }.joined(separator: "|"), readings: readings)]
    }

    private init(name: String, readings: [[String]]) {
        self.name = name
        self.readings = readings
    }

    /// The usual reading's words.
    public var usual: [String] { readings.first ?? [] }
}
