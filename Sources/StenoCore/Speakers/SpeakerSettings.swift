/// Every setting of the speaker pass in one place, with what chose it. The values were
/// calibrated on bench/speakers' calibration set (LibriSpeech train-clean conversations of one
/// half of its speakers, and the calibration meeting excerpts) and are reported on its report
/// set, which shares no voice and no meeting with it (docs/speakers.md, "How well it works").
public struct SpeakerSettings: Sendable, Equatable {
    // MARK: Segmentation (the chunk job)

    /// Seconds between the starts of neighbouring 10 s segmentation windows. At 10 each moment
    /// is read once; at 5 twice, each window speaking for its middle. Measured on the calibration
    /// set, reading twice cost 20 % more time and labelled no better (pooled DER 2.2 % at 5 s,
    /// 1.3 % at 10 s; docs/speakers.md).
    public var windowStep: Double = 10

    /// The longest piece of one voice measured as one (seconds): a stretch of one local speaker
    /// talking alone is cut into even pieces no longer than this. Shorter pieces follow a turn
    /// taken without a pause more closely; longer ones hold more of the voice.
    public var longestPiece: Double = 2.0

    /// The shortest piece measured (seconds): less says too little about a voice to place it. Its
    /// frames take the speaker of the same local speaker's other pieces in the window, else of the
    /// nearest voice heard.
    public var shortestPiece: Double = 0.4

    // MARK: Clustering (the chapter's merge)

    /// Cosine distance at which two groups of window voices are taken for different speakers
    /// (average linkage over CAM++ embeddings).
    public var clusteringThreshold: Float = 0.55

    /// A group with less talk than this, in seconds, is not a speaker of its own when the count
    /// is free: a cough, a laugh, a backchannel or crosstalk joins the speaker closest to it.
    public var smallestSpeaker: Double = 3.0

    /// A group with less talk than `smallestSpeaker` is still a speaker of its own when its voice
    /// lies further than this (cosine distance) from every larger speaker's, and it talks for at
    /// least `smallestDistinctSpeaker`: a short turn of someone clearly else, as a meeting's
    /// quieter people have, not a cough or a stray piece of a known voice.
    public var distinctSpeaker: Float = 0.7
    public var smallestDistinctSpeaker: Double = 1.0

    // MARK: Numbering across chapters

    /// Cosine distance between two chapters' groups' centroids under which they are one voice.
    /// Centroids of many windows sit closer than single windows do.
    public var chapterMatchThreshold: Float = 0.45

    // MARK: Turns

    /// A pause longer than this ends a turn even when the same voice goes on: turns say where
    /// someone speaks, and talk time counts speech, not the silence of a long pause.
    public var longestPauseInTurn: Double = 1.0

    public init() {}

    /// The calibrated settings.
    public static let calibrated = SpeakerSettings()
}
