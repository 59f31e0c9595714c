import StenoCore
import StenoInfrastructure
import Testing

/// Plans made with the speech detector's verdict: a music bed is as loud as a voice, so the
/// energy profile here is loud throughout, and only `VoiceActivity` tells speech from the rest.
@Suite("Chunk plan over detected speech")
struct ChunkPlannerSpeechTests {
    /// Speech probabilities of 1 inside `speech` (seconds), 0 elsewhere, in 32 ms windows.
    static func voice(seconds total: Double, speech: [ClosedRange<Double>]) -> VoiceActivity {
        let windows = Int((total / VoiceActivity.windowSeconds).rounded(.up))
        let probabilities = (0..<windows).map { index -> UInt8 in
            let middle = (Double(index) + 0.5) * VoiceActivity.windowSeconds
            return speech.contains { $0.contains(middle) } ? 255 : 0
        }
        return VoiceActivity(start: .zero, probabilities: probabilities)
    }

    static func loud(seconds: Double) -> EnergyProfile {
        EnergyProfile(start: .zero, windowDuration: MediaTime(milliseconds: 50), rms: [Float](repeating: 0.3, count: Int(seconds * 20)))
    }

    static func time(_ seconds: Double) -> MediaTime {
        MediaTime(value: Int64((seconds * 1000).rounded()), timeBase: 1, 1000)
    }

    static func checkTiling(_ chunks: [PlannedChunk], _ range: Range<MediaTime>) {
        #expect(chunks.first?.cutStart == range.lowerBound)
        #expect(chunks.last?.cutEnd == range.upperBound)
        for (left, right) in zip(chunks, chunks.dropFirst()) {
            #expect(left.cutEnd == right.cutStart, "the plan has a hole or an overlap at \(left.cutEnd)")
        }
        #expect(chunks.map(\.index) == Array(chunks.indices))
    }

    @Test("a music intro, a long silence and a music outro are kept in the plan with their times and not uploaded")
    func nonSpeechIsNotUploaded() throws {
        let planner = try ChunkPlanner(configuration: .init(targetDuration: Self.time(60), searchWindow: Self.time(10)))
        // 25 s of music, speech to 70 s, 20 s of silence, speech to 150 s, 20 s of music.
        let speech = [25.0...70.0, 90.0...150.0]
        let range = MediaTime.zero..<Self.time(170)
        let chunks = planner.plan(range, energy: Self.loud(seconds: 170), voice: Self.voice(seconds: 170, speech: speech))
        Self.checkTiling(chunks, range)
        let skipped = chunks.filter { !$0.uploaded }
        #expect(skipped.count == 3)
        #expect(skipped.allSatisfy { $0.speech.isEmpty && $0.start == $0.cutStart && $0.end == $0.cutEnd })
        let uploaded = chunks.filter(\.uploaded)
        let paid = uploaded.reduce(0) { $0 + $1.duration.seconds }
        let spoken = chunks.reduce(0) { $0 + $1.speechSeconds }
        #expect(abs(spoken - 105) < 0.2, "speech seconds: \(spoken)")
        #expect(paid <= spoken * 1.05, "paid \(paid) s for \(spoken) s of speech")
        // Every second of speech is in an uploaded chunk.
        for region in speech {
            let covered = uploaded.contains { $0.start.seconds <= region.lowerBound && $0.end.seconds >= region.upperBound }
                || uploaded.filter { $0.end.seconds > region.lowerBound && $0.start.seconds < region.upperBound }
                    .reduce(0) { $0 + min($1.end.seconds, region.upperBound) - max($1.start.seconds, region.lowerBound) } >= region.upperBound - region.lowerBound - 0.01
            #expect(covered, "speech \(region) is not all uploaded")
        }
    }

    @Test("cuts inside speech fall in the detector's pauses, the longest within the search window")
    func cutsFallInDetectedPauses() throws {
        let planner = try ChunkPlanner(configuration: .init(targetDuration: Self.time(60), searchWindow: Self.time(15)))
        // Speech for 200 s with pauses every 7 s: 0.4 s long, except a 1.2 s pause at 63 s and one at 118 s.
        var speech: [ClosedRange<Double>] = []
        var position = 0.0
        while position < 200 {
            let pause = [63.0, 118.0].contains { abs($0 - (position + 7)) < 3.5 } ? 1.2 : 0.4
            speech.append(position...min(200, position + 7 - pause))
            position += 7
        }
        let voice = Self.voice(seconds: 200, speech: speech)
        let pauses = zip(speech, speech.dropFirst()).map { $0.upperBound...$1.lowerBound }
        let range = MediaTime.zero..<Self.time(200)
        let chunks = planner.plan(range, energy: Self.loud(seconds: 200), voice: voice)
        Self.checkTiling(chunks, range)
        #expect(chunks.allSatisfy { $0.uploaded })
        for cut in chunks.dropFirst().map(\.cutStart.seconds) {
            #expect(pauses.contains { $0.contains(cut) }, "cut at \(cut) s is not in a pause")
        }
        let cuts = chunks.dropFirst().map(\.cutStart.seconds)
        #expect(cuts.contains { abs($0 - 62.4) < 1 }, "the long pause near 63 s was not chosen: \(cuts)")
        // A cut in a pause the detector heard is clear: the chunks on either side do not overlap.
        for (left, right) in zip(chunks, chunks.dropFirst()) {
            #expect(left.end <= right.start)
        }
    }

    @Test("a chapter with no speech at all is one chunk that is never uploaded")
    func noSpeechAtAll() throws {
        let planner = try ChunkPlanner()
        let range = MediaTime.zero..<Self.time(95)
        let chunks = planner.plan(range, energy: Self.loud(seconds: 95), voice: Self.voice(seconds: 95, speech: []))
        #expect(chunks.count == 1)
        #expect(chunks.first?.uploaded == false)
        Self.checkTiling(chunks, range)
    }

    @Test("short non-speech at the chapter's edges and between sentences is uploaded with the speech")
    func shortPausesStayUploaded() throws {
        let planner = try ChunkPlanner()
        let range = MediaTime.zero..<Self.time(40)
        let speech = [1.5...12.0, 14.5...38.8]
        let chunks = planner.plan(range, energy: Self.loud(seconds: 40), voice: Self.voice(seconds: 40, speech: speech))
        #expect(chunks.count == 1)
        #expect(chunks.first?.uploaded == true)
        #expect(chunks.first.map { $0.start == .zero && $0.end == range.upperBound } == true)
        #expect(chunks.first.map { abs($0.speechSeconds - 34.8) < 0.2 } == true)
    }

    @Test("speech regions follow Silero's rules: a start at 0.5, an end below 0.35 held for the pause, short blips dropped")
    func speechRegionsFromProbabilities() {
        func activity(_ values: [Float]) -> VoiceActivity {
            VoiceActivity(start: .zero, probabilities: values.map(VoiceActivity.quantized))
        }
        let w = VoiceActivity.windowSeconds
        // 0.4 alone never starts speech; 0.45 after a start keeps it going.
        let steady = activity([0.1, 0.4, 0.6, 0.45, 0.45, 0.7, 0.8, 0.9, 0.8, 0.9, 0.6, 0.2, 0.1, 0.1, 0.1, 0.1])
        let regions = steady.speech(.init(padding: 0))
        #expect(regions.count == 1)
        #expect(regions.first.map { abs($0.lowerBound - 2 * w) < 1e-9 && abs($0.upperBound - 11 * w) < 1e-9 } == true)
        // A blip of two windows (64 ms) is shorter than the 250 ms a word takes.
        #expect(activity([0, 0.9, 0.9, 0, 0, 0, 0, 0]).speech().isEmpty)
    }
}
