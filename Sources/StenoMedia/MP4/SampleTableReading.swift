/// When a reader takes an MP4 track's samples from the file's own tables instead of FFmpeg's
/// packet index (see `MP4Layout`).
struct SampleTableReading: Sendable {
    /// Tracks with more samples than this are read from their tables. 65,536 AAC frames are 25
    /// minutes at 44.1 kHz: shorter tracks cost FFmpeg's index under 2 MB.
    var tracksLongerThan: Int
    /// How many samples the demuxer sees and handles itself (the encoder delay, the edit).
    var headSamples: Int

    static let automatic = SampleTableReading(tracksLongerThan: 65_536, headSamples: 1024)
}
