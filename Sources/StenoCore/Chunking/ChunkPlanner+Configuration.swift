extension ChunkPlanner {
    /// How long chunks should be and the limits they must respect.
    public struct Configuration: Sendable, Hashable {
        /// The length aimed for: a few minutes keeps retries cheap and requests short.
        public var targetDuration: MediaTime
        /// The backend's longest accepted file (about 1400 s for the gpt-4o models).
        public var maxDuration: MediaTime
        /// The backend's largest accepted upload (25 MB for OpenAI), with a margin.
        public var maxUploadBytes: Int
        /// What one second of encoded audio is expected to weigh: FLAC of 16 kHz mono speech is
        /// about 17,500 bytes; the default leaves a margin. Opus at 24 kbit/s is about 3,000.
        public var estimatedBytesPerSecond: Int
        /// How far before or after each target boundary a cut may move to find a pause.
        public var searchWindow: MediaTime
        /// Audio shared by neighbouring chunks, centred on each cut.
        public var overlap: MediaTime
        /// The stretch whose mean energy ranks a candidate cut: a pause must last about this long.
        public var quietStretch: MediaTime
        /// Non-speech longer than this (music, silence, noise, as the speech detector judges
        /// it) is not uploaded: it becomes a chunk of its own that is never sent.
        public var longestUploadedPause: Double
        /// Audio uploaded before and after each stretch of detected speech, so that the backend
        /// hears its first and last sounds whole. More before than after: the detector is
        /// slower to hear a voice start than stop, most after noise or music (0.66 s late after
        /// pink noise on the labelled episodes), and a voice's first sounds are often soft.
        public var uploadLead: Double
        public var uploadTail: Double
        /// How the speech detector's probabilities become speech regions.
        public var voiceThresholds: VoiceActivity.Thresholds

        public init(
            targetDuration: MediaTime = MediaTime(seconds: 180),
            maxDuration: MediaTime = MediaTime(seconds: 1400),
            maxUploadBytes: Int = 24_000_000,
            estimatedBytesPerSecond: Int = 24_000,
            searchWindow: MediaTime = MediaTime(seconds: 20),
            overlap: MediaTime = MediaTime(milliseconds: 1500),
            quietStretch: MediaTime = MediaTime(milliseconds: 300),
            longestUploadedPause: Double = 3,
            uploadLead: Double = 0.8,
            uploadTail: Double = 0.4,
            voiceThresholds: VoiceActivity.Thresholds = VoiceActivity.Thresholds()
        ) {
            self.longestUploadedPause = longestUploadedPause
            self.uploadLead = uploadLead
            self.uploadTail = uploadTail
            self.voiceThresholds = voiceThresholds
            self.targetDuration = targetDuration
            self.maxDuration = maxDuration
            self.maxUploadBytes = maxUploadBytes
            self.estimatedBytesPerSecond = estimatedBytesPerSecond
            self.searchWindow = searchWindow
            self.overlap = overlap
            self.quietStretch = quietStretch
        }
    }
}
