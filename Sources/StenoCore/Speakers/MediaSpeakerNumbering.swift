/// The media's final speakers, once every chapter is in: the chapters' groups joined across
/// chapters by their voices (groups of one chapter stay apart: its own clustering told them
/// apart), the count held to what was asked, and numbers given in order of first appearance:
/// Speaker 1 is the first voice heard in the recording, Speaker 2 the next new one, and so on.
///
/// A pure function of the chapters' groups, each of which depends on its chapter's audio alone:
/// the same recording gets the same speakers and numbers whatever the fleet did (one worker or
/// many, any order of chunks and chapters, kills and retries).
public struct MediaSpeakerNumbering: Sendable {
    public var settings: SpeakerSettings

    public init(settings: SpeakerSettings = .calibrated) {
        self.settings = settings
    }

    /// The final number of each group of each chapter: `result[c][i]` for `chapters[c][i]`, the
    /// chapters in media order.
    public func numbers(chapters: [[ChapterSpeakerPlan.ChapterVoice]], count: SpeakerCount) -> [[Int]] {
        var flat: [(chapter: Int, index: Int, voice: ChapterSpeakerPlan.ChapterVoice)] = []
        for (chapter, voices) in chapters.enumerated() {
            for (index, voice) in voices.enumerated() { flat.append((chapter, index, voice)) }
        }
        guard !flat.isEmpty else { return chapters.map { _ in [] } }
        let centroids = flat.map { VoiceEmbedding.normalized($0.voice.sum) }
        var labels: [Int]
        if chapters.count == 1 {
            // One chapter: its groups are the speakers (its plan already held the count).
            labels = Array(flat.indices)
        } else {
            let clustering = SpeakerClustering(threshold: settings.chapterMatchThreshold)
            labels = clustering.cluster(centroids, sizes: flat.map { max(1, $0.voice.pieces) }, count: count, apart: flat.map(\.chapter))
        }
        // A speaker with less talk than the smallest, where the count is free, joins the closest,
        // unless it is short but clearly someone else (as a chapter's plan keeps it).
        if count.minimum == nil {
            var distinct: Set<Int> = []
            while true {
                let speakers = Set(labels).sorted()
                guard speakers.count > 1 else { break }
                let talk = speakers.map { speaker in flat.indices.filter { labels[$0] == speaker }.reduce(0) { $0 + flat[$1].voice.seconds } }
                guard let smallest = talk.indices.filter({ !distinct.contains(speakers[$0]) })
                    .min(by: { (talk[$0], speakers[$0]) < (talk[$1], speakers[$1]) }),
                    talk[smallest] < settings.smallestSpeaker
                else { break }
                let centroid = { (speaker: Int) in
                    VoiceEmbedding.normalized(VoiceEmbedding.sum(flat.indices.filter { labels[$0] == speaker }.map { flat[$0].voice.sum }))
                }
                let own = centroid(speakers[smallest])
                let others = speakers.filter { $0 != speakers[smallest] }
                let larger = others.filter { other in talk[speakers.firstIndex(of: other)!] >= settings.smallestSpeaker }
                if talk[smallest] >= settings.smallestDistinctSpeaker, !larger.isEmpty,
                    larger.allSatisfy({ VoiceEmbedding.distance(centroid($0), own) > settings.distinctSpeaker })
                {
                    distinct.insert(speakers[smallest])
                    continue
                }
                let target = others.max { VoiceEmbedding.dot(own, centroid($0)) < VoiceEmbedding.dot(own, centroid($1)) }!
                labels = labels.map { $0 == speakers[smallest] ? target : $0 }
            }
        }
        // Numbers by first appearance on the media's clock; chapter order breaks a tie.
        var firstMoment: [Int: (Double, Int, Int)] = [:]
        for (position, item) in flat.enumerated() {
            let moment = (item.voice.firstHeard, item.chapter, item.voice.group)
            if let known = firstMoment[labels[position]], known <= moment { continue }
            firstMoment[labels[position]] = moment
        }
        let speakers = firstMoment.keys.sorted { firstMoment[$0]! < firstMoment[$1]! }
        var number: [Int: Int] = [:]
        for (index, speaker) in speakers.enumerated() { number[speaker] = index + 1 }
        var result = chapters.map { [Int](repeating: 0, count: $0.count) }
        for (position, item) in flat.enumerated() { result[item.chapter][item.index] = number[labels[position]]! }
        return result
    }

    /// A chapter's turns (each carrying its group) under the final numbers (by group): neighbouring turns
    /// of one speaker joined, and a second voice's stretch dropped where it is the same speaker
    /// as the voice it overlaps.
    public static func renumbered(
        _ turns: [SpeakerTurn], numbers: [Int: Int], longestPause: Double = SpeakerSettings.calibrated.longestPauseInTurn
    ) -> [SpeakerTurn] {
        let mapped = turns.map { turn -> SpeakerTurn in
            var renumbered = turn
            if let group = turn.group, let number = numbers[group] { renumbered.speaker = number }
            return renumbered
        }
        var lead: [SpeakerTurn] = []
        for turn in mapped.filter({ !$0.overlapping }).sorted(by: { $0.start < $1.start }) {
            if let last = lead.last, last.speaker == turn.speaker, turn.start - last.end <= longestPause {
                lead[lead.count - 1].end = max(last.end, turn.end)
            } else {
                lead.append(turn)
            }
        }
        let second = mapped.filter(\.overlapping).filter { turn in
            let middle = (turn.start + turn.end) / 2
            return SpeakerTurn.speaker(at: middle, in: lead) != turn.speaker
        }
        return (lead + second).sorted { ($0.start, $0.overlapping ? 1 : 0) < ($1.start, $1.overlapping ? 1 : 0) }
    }
}
