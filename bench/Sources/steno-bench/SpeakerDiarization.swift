import Foundation
import StenoCore
import StenoInfrastructure
import StenoMedia
import StenoVoice

/// `steno-bench speakers DIR VAD_MODEL SPEAKER_MODEL CHUNK_SECONDS OUT_DIR`: tells the speakers
/// of every `NAME.flac`/`NAME.m4b` in DIR apart exactly as a fleet does, without the database:
/// each chapter read by the speech detector and cut into chunks by the worker's planner at
/// CHUNK_SECONDS, each chunk's voice pieces measured from that chunk's own decode, the pieces each
/// chunk owns clustered per chapter and numbered against the chapters before (the merge's
/// `ChapterSpeakerPlan` and `resolve`). Writes OUT_DIR/NAME.rttm and OUT_DIR/NAME.cuts (the
/// chunk cuts, for counting label changes at cuts), and prints the speaker encoder's time.
///
/// `steno-bench speakers-speed FILE SPEAKER_MODEL [ROUNDS]`: the encoder alone over FILE's audio
/// cut into 1.6 s pieces, 40 at a time as a 60 s chunk gives them: its speed against real time.
enum SpeakerDiarization {
    static func run(_ arguments: [String]) async throws {
        guard arguments.count == 5 else {
            FileHandle.standardError.write(Data("usage: steno-bench speakers DIR VAD_MODEL SPEAKER_MODEL CHUNK_SECONDS OUT_DIR\n".utf8))
            exit(2)
        }
        let directory = URL(fileURLWithPath: arguments[0])
        let voice = try SileroModel(contentsOf: arguments[1])
        let encoder = SpeakerEncoder(model: try SpeakerEncoderModel(contentsOf: arguments[2]))
        let chunkSeconds = argument { () throws(SettingProblem) in try SettingValue.integer(arguments[3], name: "CHUNK_SECONDS", in: 1...3600) }
        let output = URL(fileURLWithPath: arguments[4])
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        var configuration = ChunkPlanner.Configuration()
        configuration.targetDuration = MediaTime(seconds: Int64(chunkSeconds))
        let planner = try ChunkPlanner(configuration: configuration)
        // Calibration only: the thresholds the fleet uses unless these are set.
        let environment = ProcessInfo.processInfo.environment
        var clustering = SpeakerClustering()
        if let value = environment["STENO_BENCH_CLUSTER_THRESHOLD"].flatMap(Float.init) { clustering.threshold = value }
        var assignment = SpeakerAssignment()
        if let value = environment["STENO_BENCH_MATCH_THRESHOLD"].flatMap(Float.init) { assignment.threshold = value }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".flac") || $0.hasSuffix(".m4b") }.sorted()
        for name in names {
            let path = directory.appendingPathComponent(name).path
            let stem = (name as NSString).deletingPathExtension
            let info = try await MediaFile.probe(.file(path: path))
            let file = MediaFile(.file(path: path))
            let chapters = info.chapters.isEmpty ? [MediaTime.zero..<info.duration!] : info.chapters.map { $0.start..<$0.end }
            var known: [SpeakerAssignment.Voice] = []
            var turns: [SpeakerTurn] = []
            var cuts: [Double] = []
            var encoderSeconds = 0.0
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
                var measured: [(range: Range<Double>, pieces: [VoicePiece])] = []
                for chunk in chunks {
                    let pieces = VoicePiece.plan(speech: chunk.speech, within: chunk.start.seconds..<chunk.end.seconds)
                    let started = clock.now
                    let voices = try await file.analyze(chunk.start..<chunk.end) { start, _ in
                        VoiceSampler(encoder: encoder, start: start, pieces: pieces)
                    }
                    encoderSeconds += seconds(clock.now - started)
                    measured.append((chunk.start.seconds..<chunk.end.seconds, voices))
                }
                let pieces = VoicePiece.owned(byChunks: measured)
                guard !pieces.isEmpty else { continue }
                let plan = ChapterSpeakerPlan(pieces: pieces, count: .automatic, clustering: clustering)
                let resolved = plan.resolve(known: known, reserving: known.map(\.number), assignment: assignment)
                if environment["STENO_BENCH_DEBUG"] != nil {
                    let centroids = plan.groupSums.map(SpeakerClustering.normalized)
                    for (i, a) in centroids.enumerated() {
                        print(String(format: "%@ g%d %5.1fs: ", stem, i, plan.groupSeconds[i]) + centroids.map { String(format: "%.3f", 1 - SpeakerClustering.dot(a, $0)) }.joined(separator: " "))
                    }
                }
                known = SpeakerAssignment.Voice.combined(
                    known + resolved.voices.map { SpeakerAssignment.Voice(number: $0.number, sum: $0.sum, pieces: $0.pieces) })
                turns += resolved.turns
            }
            await file.close()
            let rttm = turns.map { String(format: "SPEAKER %@ 1 %.3f %.3f <NA> <NA> s%d <NA> <NA>\n", stem, $0.start, $0.end - $0.start, $0.speaker) }.joined()
            try rttm.write(to: output.appendingPathComponent("\(stem).rttm"), atomically: true, encoding: .utf8)
            try cuts.map { String(format: "%.3f\n", $0) }.joined().write(to: output.appendingPathComponent("\(stem).cuts"), atomically: true, encoding: .utf8)
            print(String(format: "%@: %d speakers, %d chunks, decode and encoder %.2f s for %.1f s of audio", stem, known.count, cuts.count + chapters.count, encoderSeconds, info.duration!.seconds))
        }
    }

    static func speed(_ arguments: [String]) async throws {
        guard arguments.count >= 2 else {
            FileHandle.standardError.write(Data("usage: steno-bench speakers-speed FILE SPEAKER_MODEL [ROUNDS]\n".utf8))
            exit(2)
        }
        let encoder = SpeakerEncoder(model: try SpeakerEncoderModel(contentsOf: arguments[1]))
        let rounds = arguments.count > 2 ? argument { () throws(SettingProblem) in try SettingValue.integer(arguments[2], name: "ROUNDS", in: 1...100) } : 3
        let info = try await MediaFile.probe(.file(path: arguments[0]))
        let samples = try await MediaFile(.file(path: arguments[0])).decode(.zero..<info.duration!).map { Float($0) / 32768 }
        let pieceLength = Int(VoicePiece.longest * 16_000)
        let pieces = stride(from: 0, to: samples.count - pieceLength + 1, by: pieceLength).map { Array(samples[$0..<$0 + pieceLength]) }
        let audio = Double(pieces.count * pieceLength) / 16_000
        let clock = ContinuousClock()
        var best = Double.infinity
        for round in 1...rounds {
            let started = clock.now
            for batch in stride(from: 0, to: pieces.count, by: 40) {
                _ = encoder.embeddings(of: Array(pieces[batch..<min(pieces.count, batch + 40)]))
            }
            let took = seconds(clock.now - started)
            print(String(format: "round %d: %.1f s of audio in %.3f s", round, audio, took))
            best = min(best, took)
        }
        print(String(format: "speaker encoder: %.1f s of audio in %.3f s on one core: %.0fx real time", audio, best, audio / best))
    }
}
