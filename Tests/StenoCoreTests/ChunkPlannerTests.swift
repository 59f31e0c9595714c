import StenoCore
import StenoInfrastructure
import Testing

/// Synthetic energy profiles: speech at 0.3 RMS, pauses at 0.001, in 50 ms windows.
private func profile(
    seconds: Int, pausesAt pauses: [Double], pauseLength: Double = 0.6, pauseLevel: Float = 0.001, start: MediaTime = .zero
) -> EnergyProfile {
    let windows = seconds * 20
    var rms = [Float](repeating: 0.3, count: windows)
    for pause in pauses {
        let first = Int(((pause - pauseLength / 2) * 20).rounded())
        let last = Int(((pause + pauseLength / 2) * 20).rounded())
        for window in max(0, first)..<min(windows, last) { rms[window] = pauseLevel }
    }
    return EnergyProfile(start: start, windowDuration: MediaTime(milliseconds: 50), rms: rms)
}

private func seconds(_ value: Double) -> MediaTime {
    MediaTime(value: Int64((value * 1000).rounded()), timeBase: 1, 1000)
}

@Suite struct ChunkPlannerTests {
    @Test func cutsFallInThePauseNearestEachTarget() throws {
        let planner = try ChunkPlanner(configuration: .init(targetDuration: seconds(180), searchWindow: seconds(20)))
        // Pauses at 170 s (in the window) and 150 s (outside it), then 355 s and 500 s.
        let energy = profile(seconds: 600, pausesAt: [150, 170, 355, 500])
        let chunks = planner.plan(.zero..<seconds(600), energy: energy)
        let cuts = chunks.dropFirst().map(\.cutStart.seconds)
        #expect(cuts.count == 3)
        #expect(abs(cuts[0] - 170) <= 0.1)
        #expect(abs(cuts[1] - 355) <= 0.1)
        // 355 + 180 = 535: the pause at 500 is out of reach (535 - 20), so the cut stays at
        // a loudness-neutral point inside the window.
        #expect(cuts[2] >= 515 && cuts[2] <= 555)
    }

    @Test func cutRangesTileTheChapterAndOverlapIsCentredOnCutsThatAreNotClearPauses() throws {
        let planner = try ChunkPlanner(configuration: .init(targetDuration: seconds(60), searchWindow: seconds(10), overlap: seconds(1.5)))
        let chapter = seconds(12.5)..<seconds(400.25)
        // Dips to a sixth of the speaking level: quieter, but not below its tenth, so a word
        // may still run through them (music under speech, a room's noise).
        let energy = profile(seconds: 401, pausesAt: [70, 135, 190, 260, 330], pauseLevel: 0.05)
        let chunks = planner.plan(chapter, energy: energy)
        #expect(chunks.first?.cutStart == chapter.lowerBound)
        #expect(chunks.last?.cutEnd == chapter.upperBound)
        #expect(chunks.first?.start == chapter.lowerBound)
        #expect(chunks.last?.end == chapter.upperBound)
        #expect(chunks.count >= 2, "the pairs below need cuts to look at")
        for (left, right) in zip(chunks, chunks.dropFirst()) {
            #expect(left.cutEnd == right.cutStart)
            #expect(left.end - right.start == seconds(1.5))
            #expect(left.end - left.cutEnd == seconds(0.75))
        }
        #expect(chunks.map(\.index) == Array(0..<chunks.count))
    }

    @Test func cutsInClearPausesHaveNoOverlap() throws {
        let planner = try ChunkPlanner(configuration: .init(targetDuration: seconds(60), searchWindow: seconds(10), overlap: seconds(1.5)))
        // Clear pauses near 70 and 190 s; at 135 s only a dip, and none near 260 s.
        var energy = profile(seconds: 300, pausesAt: [70, 190])
        for window in (134 * 20)..<(136 * 20) { energy.rms[window] = 0.05 }
        let chunks = planner.plan(.zero..<seconds(300), energy: energy)
        #expect(chunks.count == 5)
        let cuts = chunks.dropFirst().map(\.cutStart.seconds)
        #expect(abs(cuts[0] - 70) <= 0.1 && abs(cuts[1] - 135) <= 0.1 && abs(cuts[2] - 190) <= 0.1)
        // Clear pauses: the chunks meet at the cut. The dip and the flat stretch: overlap.
        #expect(chunks[0].end == chunks[1].start && chunks[0].end == chunks[0].cutEnd)
        #expect(chunks[1].end - chunks[2].start == seconds(1.5))
        #expect(chunks[2].end == chunks[3].start)
        #expect(chunks[3].end - chunks[4].start == seconds(1.5))
    }

    @Test func eachChunkCarriesTheSpeechInItsAudio() throws {
        let planner = try ChunkPlanner(configuration: .init(targetDuration: seconds(60), searchWindow: seconds(10)))
        // Speech with pauses of 0.6 s at 10, 20, 30 ... 110 s; the cut near 60 s is clear.
        let energy = profile(seconds: 120, pausesAt: stride(from: 10.0, through: 110, by: 10).map { $0 })
        let chunks = planner.plan(.zero..<seconds(120), energy: energy)
        #expect(chunks.count == 2)
        for chunk in chunks {
            #expect(chunk.speech.count == 6)
            #expect(chunk.speech.allSatisfy { $0.lowerBound >= chunk.start.seconds && $0.upperBound <= chunk.end.seconds })
        }
        // The gap at 10 s: speech to 9.7 s, again from 10.3 s.
        #expect(abs(chunks[0].speech[0].upperBound - 9.7) <= 0.06)
        #expect(abs(chunks[0].speech[1].lowerBound - 10.3) <= 0.06)
    }

    @Test func speechRegionsIgnoreShortGapsAndClicks() {
        // 50 ms windows: speech 0-1 s, a 100 ms gap (a stop consonant), speech to 2 s, silence,
        // a 50 ms click at 3 s, silence to 4 s.
        var rms = [Float](repeating: 0.2, count: 40) + [Float](repeating: 0.0, count: 40)
        rms[20] = 0.0
        rms[21] = 0.0
        rms[60] = 0.3
        let regions = SpeechRegions(EnergyProfile(start: seconds(5), windowDuration: MediaTime(milliseconds: 50), rms: rms))
        #expect(regions.regions.count == 1)
        #expect(abs(regions.regions[0].lowerBound - 5) < 1e-9 && abs(regions.regions[0].upperBound - 7) < 1e-9)
        #expect(regions.within(6...6.5) == [6...6.5])
    }

    @Test func speechRegionsFindPausesUnderSteadyNoise() throws {
        // Speech at 0.2 over noise at 0.05 (-12 dB): the pauses never fall to a tenth of the
        // speaking level, but they are at the noise floor. 50 ms windows: speech 1 s, pause
        // 0.5 s, speech 1 s, pause 0.5 s, speech 1 s.
        let speech = [Float](repeating: 0.2, count: 20)
        let pause = [Float](repeating: 0.05, count: 10)
        // A word 4 dB quieter than the speaking level is still speech, not a pause.
        #expect(SpeechRegions(EnergyProfile(
            start: .zero, windowDuration: MediaTime(milliseconds: 50),
            rms: speech + [Float](repeating: 0.12, count: 10) + speech + pause + speech)).regions.count == 2)
        let noisy = SpeechRegions(EnergyProfile(start: .zero, windowDuration: MediaTime(milliseconds: 50), rms: speech + pause + speech + pause + speech))
        #expect(noisy.regions.count == 3)
        #expect(abs(noisy.regions[1].lowerBound - 1.5) < 1e-9 && abs(noisy.regions[1].upperBound - 2.5) < 1e-9)
        // No cut there is clear: the noise would be in both chunks.
        #expect(abs(noisy.pauseLevel - 0.02) < 1e-6)
        // Between sentences in silence, the line stays at a tenth of the speaking level: a quiet
        // word at 0.05 is speech.
        let silence = [Float](repeating: 0.001, count: 10)
        let clean = SpeechRegions(EnergyProfile(start: .zero, windowDuration: MediaTime(milliseconds: 50), rms: speech + silence + speech + pause + speech))
        #expect(clean.regions.count == 2)
    }

    @Test func noChunkExceedsTheDurationLimitEvenWithoutPauses() throws {
        // A target above the limit is capped by it; a flat profile leaves no pause to prefer.
        let planner = try ChunkPlanner(configuration: .init(
            targetDuration: seconds(2000), maxDuration: seconds(1400), searchWindow: seconds(30), overlap: seconds(2)))
        let energy = profile(seconds: 5000, pausesAt: [])
        let chunks = planner.plan(.zero..<seconds(5000), energy: energy)
        #expect(chunks.count >= 4)
        for chunk in chunks {
            #expect(chunk.duration <= seconds(1400))
        }
    }

    @Test func uploadSizeLimitShortensChunks() throws {
        // 1,000,000 bytes at 10,000 bytes/s: 100 s per file, less the 1.5 s overlap.
        let planner = try ChunkPlanner(configuration: .init(
            targetDuration: seconds(180), maxUploadBytes: 1_000_000, estimatedBytesPerSecond: 10_000, searchWindow: seconds(10)))
        #expect(planner.longestCutRange == seconds(98.5))
        let chunks = planner.plan(.zero..<seconds(1000), energy: profile(seconds: 1000, pausesAt: []))
        // 1000 s in pieces of at most 98.5 s of new audio: eleven at least, or the loop below proves nothing.
        #expect(chunks.count >= 11)
        #expect(chunks.last?.cutEnd == seconds(1000))
        for chunk in chunks {
            #expect(chunk.duration <= seconds(100))
        }
    }

    @Test func shortChapterIsOneChunkAndTailIsNeverASliver() throws {
        let planner = try ChunkPlanner(configuration: .init(targetDuration: seconds(180), searchWindow: seconds(20)))
        let short = planner.plan(.zero..<seconds(195), energy: profile(seconds: 195, pausesAt: [100]))
        #expect(short.count == 1)
        // 210 s is over target + window: one cut, and the last chunk keeps at least the window.
        let chunks = planner.plan(.zero..<seconds(210), energy: profile(seconds: 210, pausesAt: [205]))
        #expect(chunks.count == 2)
        #expect(chunks[1].cutEnd - chunks[1].cutStart >= seconds(20))
    }

    @Test func longerPauseWinsOverSingleQuietWindow() throws {
        let planner = try ChunkPlanner(configuration: .init(targetDuration: seconds(100), searchWindow: seconds(20)))
        var energy = profile(seconds: 300, pausesAt: [112], pauseLength: 0.8)
        // One quiet 50 ms window (a plosive gap) closer to the target must not win.
        energy.rms[100 * 20] = 0.0
        let chunks = planner.plan(.zero..<seconds(300), energy: energy)
        #expect(abs(chunks[1].cutStart.seconds - 112) <= 0.1)
    }

    @Test func missingEnergyFallsBackToTheTarget() throws {
        let planner = try ChunkPlanner(configuration: .init(targetDuration: seconds(100), searchWindow: seconds(10)))
        let empty = EnergyProfile(start: .zero, windowDuration: MediaTime(milliseconds: 50), rms: [])
        let chunks = planner.plan(.zero..<seconds(250), energy: empty)
        #expect(chunks.map(\.cutStart) == [.zero, seconds(100), seconds(200)])
    }

    @Test func splitKeepsOuterEdgesAndCutsAtAPause() throws {
        let planner = try ChunkPlanner(configuration: .init(searchWindow: seconds(20), overlap: seconds(1)))
        let chunk = PlannedChunk(index: 4, cutStart: seconds(100), cutEnd: seconds(280), start: seconds(99.5), end: seconds(280.5))
        let energy = profile(seconds: 300, pausesAt: [185])
        let pieces = planner.split(chunk, energy: energy)
        #expect(pieces.count == 2)
        #expect(pieces[0].start == chunk.start && pieces[1].end == chunk.end)
        #expect(pieces[0].cutStart == chunk.cutStart && pieces[1].cutEnd == chunk.cutEnd)
        #expect(abs(pieces[0].cutEnd.seconds - 185) <= 0.1)
        #expect(pieces.map(\.index) == [4, 5])
    }

    @Test func impossibleLimitsAreRejected() {
        #expect(throws: ChunkPlannerError.self) {
            try ChunkPlanner(configuration: .init(maxDuration: seconds(1), overlap: seconds(1.5)))
        }
        #expect(throws: ChunkPlannerError.self) {
            try ChunkPlanner(configuration: .init(targetDuration: .zero))
        }
    }

    @Test func energyBuilderMeasuresWindows() {
        var builder = EnergyProfileBuilder(start: seconds(2), sampleRate: 16_000, windowSamples: 800)
        builder.append([Int16](repeating: 0, count: 800))
        builder.append([Int16](repeating: 16_384, count: 500))
        builder.append([Int16](repeating: -16_384, count: 300))
        builder.append([Int16](repeating: 32_767, count: 10))
        let profile = builder.finish()
        #expect(profile.rms.count == 3)
        #expect(profile.rms[0] == 0)
        #expect(abs(profile.rms[1] - 0.5) < 1e-6)
        #expect(profile.rms[2] > 0.99)
        #expect(profile.time(ofWindow: 2) == seconds(2.1))
        #expect(profile.window(containing: seconds(2.099)) == 1)
    }
}
