/// The one place where pocketsphinx's return codes are checked.
enum PocketSphinxCall {
    /// pocketsphinx returns a negative number on failure.
    @discardableResult
    static func check(_ result: Int32, _ call: StaticString) throws(SpeechError) -> Int32 {
        guard result >= 0 else {
            throw SpeechError(.recognitionFailed, "pocketsphinx \(call) failed with \(result)")
        }
        return result
    }
}
