/// `CaptionCueBuilder.removingOverlaps` one cue at a time, for exports that write cues as they
/// are made: a cue is final once the next one is known (its end may move back to the next
/// start), so the sequence holds one cue back. The result is the same as the batch rule's.
struct CaptionCueSequence<Tag>: Sendable where Tag: Sendable {
    private var held: (cue: CaptionCue, tag: Tag)?

    /// Takes `cue` (tagged with, say, its chapter) and returns the previous cue, now final.
    mutating func add(_ cue: CaptionCue, tag: Tag) -> (cue: CaptionCue, tag: Tag)? {
        let minimumLength = 0.001
        var cue = cue
        guard var previous = held else {
            cue.end = max(cue.end, cue.start + minimumLength)
            held = (cue, tag)
            return nil
        }
        cue.start = max(cue.start, previous.cue.start + minimumLength)
        cue.end = max(cue.end, cue.start + minimumLength)
        if previous.cue.end > cue.start {
            previous.cue.end = cue.start
        }
        held = (cue, tag)
        return previous
    }

    /// The last cue, once no more come.
    mutating func finish() -> (cue: CaptionCue, tag: Tag)? {
        defer { held = nil }
        return held
    }
}
