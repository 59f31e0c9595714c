import Foundation
import StenoCore
import StenoInfrastructure
import StenoMedia
import StenoVoice

/// `steno-bench speakers DIR VAD_MODEL SPEAKER_MODEL CHUNK_SECONDS OUT_DIR`: tells the speakers
/// of every `NAME.flac`/`NAME.wav`/`NAME.m4b` in DIR apart exactly as a fleet does, without the
/// database: each chapter read by the speech detector and cut into chunks by the worker's planner
/// at CHUNK_SECONDS, each chunk's speaker pass (segmentation-3.0 windows and CAM++ voices) run on
/// that chunk's own decode, the windows clustered per chapter (`ChapterSpeakerPlan`), numbered
/// against the chapters before (`resolve`) and finally for the whole media
/// (`MediaSpeakerNumbering`). The segmentation model is read from beside SPEAKER_MODEL. Writes
/// OUT_DIR/NAME.rttm (overlapping speech as a second speaker's lines) and OUT_DIR/NAME.cuts (the
/// chunk cuts, for counting label changes at cuts), and prints the speaker pass's time.
///
/// `steno-bench speakers-speed FILE SPEAKER_MODEL [ROUNDS]`: the whole speaker pass alone over
/// FILE's audio, as 60 s chunks give it: its speed against real time.
///
/// Calibration only: STENO_BENCH_CLUSTER_THRESHOLD, STENO_BENCH_SMALLEST_SPEAKER,
/// STENO_BENCH_MATCH_THRESHOLD, STENO_BENCH_WINDOW_STEP, STENO_BENCH_DISTINCT_SPEAKER and
/// STENO_BENCH_SMALLEST_DISTINCT override the calibrated settings; STENO_BENCH_NO_GATE runs the pass
/// without the speech detector's regions (every window read, no turn bounded by them).
enum SpeakerDiarization {
    static func settings() -> SpeakerSettings {
        let environment = ProcessInfo.processInfo.environment
        var settings = SpeakerSettings.calibrated
        if let value = environment["STENO_BENCH_CLUSTER_THRESHOLD"].flatMap(Float.init) { settings.clusteringThreshold = value }
        if let value = environment["STENO_BENCH_SMALLEST_SPEAKER"].flatMap(Double.init) { settings.smallestSpeaker = value }
        if let value = environment["STENO_BENCH_MATCH_THRESHOLD"].flatMap(Float.init) { settings.chapterMatchThreshold = value }
        if let value = environment["STENO_BENCH_WINDOW_STEP"].flatMap(Double.init) { settings.windowStep = value }
        if let value = environment["STENO_BENCH_DISTINCT_SPEAKER"].flatMap(Float.init) { settings.distinctSpeaker = value }
        if let value = environment["STENO_BENCH_SMALLEST_DISTINCT"].flatMap(Double.init) { settings.smallestDistinctSpeaker = value }
        return settings
    }

    static func pass(speakerModel: String) throws -> SpeakerPass {
        let segmentation = URL(fileURLWithPath: speakerModel).deletingLastPathComponent().appendingPathComponent(SegmentationModel.fileName).path
        return SpeakerPass(
            segmentation: try SegmentationModel(contentsOf: segmentation), encoder: try SpeakerEncoderModel(contentsOf: speakerModel),
            settings: settings())
    }

    static func run(_ arguments: [String]) async throws {
        guard arguments.count == 5 else {
            FileHandle.standardError.write(Data("usage: steno-bench speakers DIR VAD_MODEL SPEAKER_MODEL CHUNK_SECONDS OUT_DIR\n".utf8))
            exit(2)
        }
        let directory = URL(fileURLWithPath: arguments[0])
        let voice = try SileroModel(contentsOf: arguments[1])
        let pass = try pass(speakerModel: arguments[2])
        let chunkSeconds = argument { () throws(SettingProblem) in try SettingValue.integer(arguments[3], name: "CHUNK_SECONDS", in: 1...3600) }
        let output = URL(fileURLWithPath: arguments[4])
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        var configuration = ChunkPlanner.Configuration()
        configuration.targetDuration = MediaTime(seconds: Int64(chunkSeconds))
        let planner = try ChunkPlanner(configuration: configuration)
        let settings = pass.settings
        let debug = ProcessInfo.processInfo.environment["STENO_BENCH_DEBUG"] != nil
        let noGate = ProcessInfo.processInfo.environment["STENO_BENCH_NO_GATE"] != nil
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".flac") || $0.hasSuffix(".m4b") || $0.hasSuffix(".wav") }.sorted()
        for name in names {
            let path = directory.appendingPathComponent(name).path
            let stem = (name as NSString).deletingPathExtension
            let info = try await MediaFile.probe(.file(path: path))
            let file = MediaFile(.file(path: path))
            let chapters = info.chapters.isEmpty ? [MediaTime.zero..<info.duration!] : info.chapters.map { $0.start..<$0.end }
            var known: [SpeakerAssignment.Voice] = []
            var chapterVoices: [[ChapterSpeakerPlan.ChapterVoice]] = []
            var chapterTurns: [[SpeakerTurn]] = []
            var cuts: [Double] = []
            var passSeconds = 0.0
            let clock = ContinuousClock()
            for chapter in chapters {
                let windowSamples = try MediaFile.energyWindowSamples()
                let (energy, speech) = try await file.analyze(chapter) { start, samples in
                    AudioAnalysisPair(
                        EnergyProfileBuilder(start: start, sampleRate: VoiceActivity.sampleRate, windowSamples: windowSamples, expectedSamples: samples),
                        SileroDetector(model: voice, start: start, expectedSamples: samples))
                }
                let chunks = planner.plan(chapter, energy: energy, voice: speech).filter(\.uploaded)
                cuts += chunks.dropFirst().map(\.cutStart.seconds)
                var windows: [SegmentedWindow] = []
                var regions: [ClosedRange<Double>] = []
                for chunk in chunks {
                    let started = clock.now
                    windows += try await file.analyze(chunk.start..<chunk.end) { start, samples in
                        SpeakerSampler(pass: pass, start: start, expectedSamples: Int(samples), speech: noGate ? nil : chunk.speech)
                    }
                    passSeconds += seconds(clock.now - started)
                    regions += chunk.speech ?? []
                }
                let plan = ChapterSpeakerPlan(windows: windows, speech: noGate ? nil : regions, count: .automatic, settings: settings)
                let resolved = plan.resolve(known: known, reserving: known.map(\.number), settings: settings)
                if debug {
                    print("speech: " + regions.map { String(format: "%.1f-%.1f", $0.lowerBound, $0.upperBound) }.joined(separator: " "))
                    var units: [(String, [Float])] = []
                    for window in windows {
                        for piece in window.pieces {
                            units.append((String(format: "%.1f-%.1f/l%d", window.time(ofFrame: piece.frames.lowerBound), window.time(ofFrame: piece.frames.upperBound), piece.local), piece.embedding))
                        }
                    }
                    for (label, a) in units {
                        print(label + ": " + units.map { String(format: "%.2f", 1 - VoiceEmbedding.dot(a, $0.1)) }.joined(separator: " "))
                    }
                    let centroids = plan.groupSums.map(VoiceEmbedding.normalized)
                    for (i, a) in centroids.enumerated() {
                        print(String(format: "%@ g%d %5.1fs: ", stem, i, plan.groupSeconds[i]) + centroids.map { String(format: "%.3f", 1 - VoiceEmbedding.dot(a, $0)) }.joined(separator: " "))
                    }
                }
                known = SpeakerAssignment.Voice.combined(
                    known + resolved.voices.map { SpeakerAssignment.Voice(number: $0.number, sum: $0.sum, pieces: $0.pieces) })
                chapterVoices.append(resolved.voices)
                chapterTurns.append(resolved.turns)
            }
            await file.close()
            let final = MediaSpeakerNumbering(settings: settings).numbers(chapters: chapterVoices, count: .automatic)
            var turns: [SpeakerTurn] = []
            for (index, chapter) in chapterTurns.enumerated() {
                turns += MediaSpeakerNumbering.renumbered(chapter, numbers: Dictionary(uniqueKeysWithValues: zip(chapterVoices[index].map(\.group), final[index])))
            }
            let rttm = turns.map { String(format: "SPEAKER %@ 1 %.3f %.3f <NA> <NA> s%d <NA> <NA>\n", stem, $0.start, $0.end - $0.start, $0.speaker) }.joined()
            try rttm.write(to: output.appendingPathComponent("\(stem).rttm"), atomically: true, encoding: .utf8)
            try cuts.map { String(format: "%.3f\n", $0) }.joined().write(to: output.appendingPathComponent("\(stem).cuts"), atomically: true, encoding: .utf8)
            let speakers = Set(turns.map(\.speaker)).count
            print(String(format: "%@: %d speakers, %d chunks, speaker pass %.2f s for %.1f s of audio", stem, speakers, cuts.count + chapters.count, passSeconds, info.duration!.seconds))
        }
    }

    static func speed(_ arguments: [String]) async throws {
        guard arguments.count >= 2 else {
            FileHandle.standardError.write(Data("usage: steno-bench speakers-speed FILE SPEAKER_MODEL [ROUNDS]\n".utf8))
            exit(2)
        }
        let pass = try pass(speakerModel: arguments[1])
        let rounds = arguments.count > 2 ? argument { () throws(SettingProblem) in try SettingValue.integer(arguments[2], name: "ROUNDS", in: 1...100) } : 3
        let info = try await MediaFile.probe(.file(path: arguments[0]))
        let samples = try await MediaFile(.file(path: arguments[0])).decode(.zero..<info.duration!).map { Float($0) / 32768 }
        let chunk = 60 * 16_000
        let audio = Double(samples.count) / 16_000
        let clock = ContinuousClock()
        var best = Double.infinity
        for round in 1...rounds {
            let started = clock.now
            for first in stride(from: 0, to: samples.count, by: chunk) {
                _ = pass.windows(of: Array(samples[first..<min(samples.count, first + chunk)]), start: Double(first) / 16_000, speech: nil)
            }
            let took = seconds(clock.now - started)
            print(String(format: "round %d: %.1f s of audio in %.3f s", round, audio, took))
            best = min(best, took)
        }
        print(String(format: "speaker pass (segmentation and embeddings): %.1f s of audio in %.3f s on one core: %.0fx real time", audio, best, audio / best))
    }
}
