import StenoInfrastructure

/// A chapter's speakers before they get the media's numbers, found from the segmentation
/// windows its chunks measured: which pieces of voice are one speaker (the clustering of their
/// CAM++ embeddings), and who talks at each moment, overlap included (each window's frames read
/// back through its pieces' groups over the frames it owns). Groups are the chapter's own and
/// numbered 0, 1, ... in order of first appearance, so the plan depends on the chapter's audio
/// alone, never on which worker measured what or in which order chapters merged.
///
/// The merge computes it outside any transaction; the store numbers the groups under the
/// media's lock (`resolve`), where it sees the speakers of every other chapter.
public struct ChapterSpeakerPlan: Sendable, Equatable {
    /// Who talks when, by group: one speaker at a time (the voice that carries the moment), and
    /// apart from them turns marked `overlapping` for a second voice talking at once.
    public var turns: [SpeakerTurn]
    /// Per group: the sum of its pieces' unit embeddings (its direction is the voice), how many
    /// pieces, seconds of talk, and where it is first heard.
    public var groupSums: [[Float]]
    public var groupPieces: [Int]
    public var groupSeconds: [Double]
    public var groupFirstHeard: [Double]
    public var count: SpeakerCount

    public var groupCount: Int { groupSums.count }

    /// Plans the chapter's speakers from `windows` (any order). `speech` (the speech detector's
    /// regions, nil with detection off) bounds where anyone talks: the transcript's words come
    /// from there, and music or noise the segmentation takes for a voice stays unlabelled.
    public init(
        windows: [SegmentedWindow], speech: [ClosedRange<Double>]?, count: SpeakerCount, settings: SpeakerSettings = .calibrated
    ) {
        self.count = count
        let windows = windows.sorted { $0.start < $1.start }
        var units: [(window: Int, piece: Int, embedding: [Float], seconds: Double)] = []
        for (index, window) in windows.enumerated() {
            for (position, piece) in window.pieces.enumerated() where !piece.embedding.isEmpty {
                units.append((index, position, VoiceEmbedding.normalized(piece.embedding), piece.seconds))
            }
        }
        guard !units.isEmpty else {
            turns = []
            groupSums = []
            groupPieces = []
            groupSeconds = []
            groupFirstHeard = []
            return
        }
        let labels = Self.grouped(units.map { ($0.window, $0.embedding, $0.seconds) }, count: count, settings: settings)
        var pieceGroups = windows.map { [Int](repeating: 0, count: $0.pieces.count) }
        for (unit, label) in zip(units, labels) { pieceGroups[unit.window][unit.piece] = label }
        let groupTotal = (labels.max() ?? -1) + 1
        let timeline = Self.reconstructed(windows, pieceGroups: pieceGroups, groups: groupTotal, speech: speech)
        var groupTurns = Self.turns(timeline, settings: settings)

        // Groups by first appearance; a group heard nowhere (its frames all went to others) is
        // dropped.
        var order: [Int: Int] = [:]
        for turn in groupTurns.sorted(by: { ($0.start, $0.overlapping ? 1 : 0) < ($1.start, $1.overlapping ? 1 : 0) })
        where order[turn.speaker] == nil {
            order[turn.speaker] = order.count
        }
        for index in groupTurns.indices { groupTurns[index].speaker = order[groupTurns[index].speaker]! }
        turns = groupTurns
        let kept = order.count
        var sums = [[Float]](repeating: [Float](repeating: 0, count: units[0].embedding.count), count: kept)
        var pieces = [Int](repeating: 0, count: kept)
        for (unit, label) in zip(units, labels) {
            guard let group = order[label] else { continue }
            for index in sums[group].indices { sums[group][index] += unit.embedding[index] }
            pieces[group] += 1
        }
        groupSums = sums
        groupPieces = pieces
        groupSeconds = (0..<kept).map { group in groupTurns.filter { $0.speaker == group }.reduce(0) { $0 + $1.end - $1.start } }
        groupFirstHeard = (0..<kept).map { group in groupTurns.filter { $0.speaker == group }.map(\.start).min() ?? 0 }
    }

    /// The group of each piece: agglomerative clustering at the threshold (or the count asked),
    /// then groups with less talk than `smallestSpeaker` dissolved into the others and every
    /// piece moved to its closest centroid, twice, as k-means would.
    static func grouped(_ units: [(window: Int, embedding: [Float], seconds: Double)], count: SpeakerCount, settings: SpeakerSettings) -> [Int] {
        let clustering = SpeakerClustering(threshold: settings.clusteringThreshold)
        var labels = clustering.labels(of: units.map(\.embedding), count: count, weights: units.map(\.seconds))
        for _ in 0..<2 {
            var groups = Set(labels).sorted()
            let talk = groups.map { group in zip(units, labels).filter { $0.1 == group }.reduce(0) { $0 + $1.0.seconds } }
            let centroid = { (group: Int) in
                VoiceEmbedding.normalized(VoiceEmbedding.sum(zip(units, labels).filter { $0.1 == group }.map { unit, _ in
                    unit.embedding.map { $0 * Float(unit.seconds) }
                }))
            }
            if count.minimum == nil {
                let large = groups.indices.filter { talk[$0] >= settings.smallestSpeaker }
                var keep = large.isEmpty ? [talk.indices.max { talk[$0] < talk[$1] }!] : large
                let kept = keep.map { centroid(groups[$0]) }
                // Short but clearly someone else: kept.
                for index in groups.indices where !keep.contains(index) && talk[index] >= settings.smallestDistinctSpeaker {
                    let own = centroid(groups[index])
                    if kept.allSatisfy({ VoiceEmbedding.distance($0, own) > settings.distinctSpeaker }) { keep.append(index) }
                }
                groups = keep.sorted().map { groups[$0] }
            }
            let centroids = groups.map(centroid)
            labels = units.map { unit in groups[centroids.indices.max { VoiceEmbedding.dot(centroids[$0], unit.embedding) < VoiceEmbedding.dot(centroids[$1], unit.embedding) }!] }
        }
        return SpeakerClustering.renumbered(labels)
    }

    /// One cell per segmentation frame step on the chapter's clock: who talks there, the
    /// strongest first.
    struct Timeline {
        var origin: Double
        var step: Double
        /// Per cell: the groups talking, strongest first (at most two); empty for silence.
        var talkers: [[Int]]
        /// Per cell: whether someone talks there whom no measured voice accounts for.
        var unplaced: [Bool]
    }

    /// Reads each window's owned frames back through its pieces' groups: a local speaker's frame
    /// takes the group of its piece there, else of the nearest of that local speaker's pieces in
    /// the window (overlapped speech and short stretches are not measured, but the same local
    /// speaker a moment before or after is most likely the same person). The talkers of a cell
    /// are the groups heard there (inside detected speech at least one, outside none), the one
    /// that talked alone nearest first.
    static func reconstructed(
        _ windows: [SegmentedWindow], pieceGroups: [[Int]], groups: Int, speech: [ClosedRange<Double>]?
    ) -> Timeline {
        let step = SegmentedWindow.frameStep
        let origin = windows[0].start
        let offsets = windows.map { Int((($0.start - origin) / step).rounded()) }
        let cells = zip(windows, offsets).map { $1 + min($0.owned.upperBound, $0.activity.count) }.max() ?? 0
        var heard = [[Int]](repeating: [], count: cells)
        var voices = [Int](repeating: 0, count: cells)
        for (index, window) in windows.enumerated() {
            // Per local speaker, the group of the piece covering each frame, else the nearest.
            var groupOf = [[Int?]](repeating: [Int?](repeating: nil, count: window.activity.count), count: SegmentedWindow.localSpeakers)
            for local in 0..<SegmentedWindow.localSpeakers {
                let pieces = window.pieces.indices.filter { window.pieces[$0].local == local }
                guard !pieces.isEmpty else { continue }
                for frame in window.owned.clamped(to: 0..<window.activity.count) {
                    let nearest = pieces.min { a, b in
                        Self.distance(frame, window.pieces[a].frames) < Self.distance(frame, window.pieces[b].frames)
                    }!
                    groupOf[local][frame] = pieceGroups[index][nearest]
                }
            }
            for frame in window.owned.clamped(to: 0..<window.activity.count) {
                let cell = offsets[index] + frame
                let mask = window.activity[frame]
                voices[cell] = max(voices[cell], mask.nonzeroBitCount)
                // Alone first: the local speaker talking alone carries the moment.
                let locals = (0..<SegmentedWindow.localSpeakers).filter { mask & (1 << UInt8($0)) != 0 }
                    .map { local in (local, measured: window.pieces.contains { $0.local == local && $0.frames.contains(frame) }) }
                    .sorted { ($0.measured ? 0 : 1, $0.0) < ($1.measured ? 0 : 1, $1.0) }
                    .map(\.0)
                for local in locals {
                    if let group = groupOf[local][frame], !heard[cell].contains(group) { heard[cell].append(group) }
                }
            }
        }
        let regions = (speech ?? []).sorted { $0.lowerBound < $1.lowerBound }
        var region = 0
        var talkers = [[Int]](repeating: [], count: cells)
        var unplaced = [Bool](repeating: false, count: cells)
        for cell in 0..<cells {
            let time = origin + Double(cell) * step + SegmentedWindow.frameDuration / 2
            var wanted = voices[cell]
            if speech != nil {
                while region < regions.count && regions[region].upperBound < time { region += 1 }
                let inside = region < regions.count && regions[region].contains(time)
                wanted = inside ? max(1, wanted) : 0
            }
            guard wanted > 0 else { continue }
            talkers[cell] = Array(heard[cell].prefix(min(wanted, 2)))
            if talkers[cell].isEmpty { unplaced[cell] = true }
        }
        return Timeline(origin: origin, step: step, talkers: talkers, unplaced: unplaced)
    }

    /// Frames from `frame` to the nearest of `range`.
    static func distance(_ frame: Int, _ range: Range<Int>) -> Int {
        frame < range.lowerBound ? range.lowerBound - frame : frame >= range.upperBound ? frame - range.upperBound + 1 : 0
    }

    /// The timeline's turns: the voice that carries each moment (speech no measured voice
    /// accounts for goes to the nearest one heard), joined across pauses up to
    /// `longestPauseInTurn`; and a second voice's stretches marked `overlapping`.
    static func turns(_ timeline: Timeline, settings: SpeakerSettings) -> [SpeakerTurn] {
        var lead = timeline.talkers.map(\.first)
        // Unplaced speech: the nearest lead voice, before or after.
        let placed = lead.indices.filter { lead[$0] != nil }
        if !placed.isEmpty {
            var next = 0
            for cell in lead.indices where timeline.unplaced[cell] {
                while next < placed.count && placed[next] < cell { next += 1 }
                let before = next > 0 ? placed[next - 1] : nil
                let after = next < placed.count ? placed[next] : nil
                switch (before, after) {
                case let (before?, after?): lead[cell] = cell - before <= after - cell ? lead[before] : lead[after]
                case let (before?, nil): lead[cell] = lead[before]
                case let (nil, after?): lead[cell] = lead[after]
                case (nil, nil): break
                }
            }
        }
        func time(_ cell: Int) -> Double { timeline.origin + Double(cell) * timeline.step }
        var turns: [SpeakerTurn] = []
        var cell = 0
        while cell < lead.count {
            guard let speaker = lead[cell] else {
                cell += 1
                continue
            }
            var end = cell
            while end < lead.count && lead[end] == speaker { end += 1 }
            if let last = turns.last, last.speaker == speaker, time(cell) - last.end <= settings.longestPauseInTurn {
                turns[turns.count - 1].end = time(end)
            } else {
                turns.append(SpeakerTurn(start: time(cell), end: time(end), speaker: speaker))
            }
            cell = end
        }
        var overlapping: [SpeakerTurn] = []
        cell = 0
        while cell < timeline.talkers.count {
            guard timeline.talkers[cell].count > 1 else {
                cell += 1
                continue
            }
            let speaker = timeline.talkers[cell][1]
            var end = cell
            while end < timeline.talkers.count && timeline.talkers[end].count > 1 && timeline.talkers[end][1] == speaker { end += 1 }
            overlapping.append(SpeakerTurn(start: time(cell), end: time(end), speaker: speaker, overlapping: true))
            cell = end
        }
        return (turns + overlapping).sorted { ($0.start, $0.overlapping ? 1 : 0) < ($1.start, $1.overlapping ? 1 : 0) }
    }

    /// What the chapter adds to the media's speakers once its groups have numbers.
    public struct Resolved: Sendable, Equatable {
        /// The speaker number of each group.
        public var numbers: [Int]
        /// The turns with the media's numbers, each keeping its group.
        public var turns: [SpeakerTurn]
        /// Per group: its number, summed embedding, window voices, seconds and first moment.
        public var voices: [ChapterVoice]
    }

    /// One group of a chapter as `chapter_voices` keeps it.
    public struct ChapterVoice: Sendable, Equatable {
        public var group: Int
        public var number: Int
        public var sum: [Float]
        public var pieces: Int
        public var seconds: Double
        public var firstHeard: Double

        public init(group: Int, number: Int, sum: [Float], pieces: Int, seconds: Double, firstHeard: Double) {
            self.group = group
            self.number = number
            self.sum = sum
            self.pieces = pieces
            self.seconds = seconds
            self.firstHeard = firstHeard
        }
    }

    /// Numbers the groups against the media's `known` voices (from its other chapters), for
    /// the reader while the media is in progress; the media's final numbers come from
    /// `MediaSpeakerNumbering` once every chapter is in. Numbers in `reserved` are never given
    /// to a new speaker.
    public func resolve(
        known: [SpeakerAssignment.Voice], reserving reserved: [Int] = [], settings: SpeakerSettings = .calibrated
    ) -> Resolved {
        var assignment = SpeakerAssignment(threshold: settings.chapterMatchThreshold)
        assignment.smallestNewSpeaker = settings.smallestSpeaker
        let numbers = assignment.numbers(of: groupSums, seconds: groupSeconds, known: known, reserving: reserved, maximum: count.maximum)
        let turns = self.turns.map { turn in
            var numbered = turn
            numbered.speaker = numbers[turn.speaker]
            numbered.group = turn.speaker
            return numbered
        }
        let voices = numbers.indices.map { group in
            ChapterVoice(
                group: group, number: numbers[group], sum: groupSums[group], pieces: groupPieces[group], seconds: groupSeconds[group],
                firstHeard: groupFirstHeard[group])
        }
        return Resolved(numbers: numbers, turns: turns, voices: voices)
    }
}
