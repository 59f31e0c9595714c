import Foundation
import StenoCore
import StenoInfrastructure
import StenoMedia
import StenoTestSupport
import Testing

@testable import StenoVoice

/// The detector on audio whose every stretch is labelled (`scripts/make-episodes`): four voices,
/// music with and without a beat, noise of three colours at two levels, applause, room tone,
/// silence, and speech over a music bed.
@Suite("Speech detection accuracy")
struct SpeechDetectionAccuracyTests {
    struct Labelled: Decodable {
        struct Region: Decodable {
            var start: Double
            var end: Double
            var label: String
        }
        var regions: [Region]
    }

    static let collar = 0.25

    @Test("speech is found in nearly every window of speech, and in almost none of music, noise or silence")
    func frameAccuracy() async throws {
        let folder = FixtureBook.directory.appendingPathComponent("episodes")
        let labels = try JSONDecoder().decode(Labelled.self, from: Data(contentsOf: folder.appendingPathComponent("labelled.json")))
        let model = try SileroModel(contentsOf: VoiceModelFile.path)
        let file = MediaFile(MediaLocation(folder.appendingPathComponent("labelled.flac").path))
        let duration = try #require(labels.regions.last?.end)
        let activity = try await file.analyze(.zero..<MediaTime(samples: Int64((duration * 16_000).rounded()), rate: 16_000)) { start, samples in
            SileroDetector(model: model, start: start, expectedSamples: samples)
        }
        await file.close()
        let regions = activity.speech()
        // Per label: seconds, and the share of its windows inside detected speech.
        var seconds: [String: Double] = [:]
        var marked: [String: Double] = [:]
        for index in activity.probabilities.indices {
            let middle = activity.seconds(ofWindow: index) + VoiceActivity.windowSeconds / 2
            // A collar around each change of label, as VAD evaluations use: which side of a
            // boundary its last 250 ms belong to is the detector's timing, measured by the
            // episodes' segment times, not its judgement of what it hears.
            guard let region = labels.regions.first(where: { $0.start <= middle && middle < $0.end }),
                middle - region.start >= Self.collar, region.end - middle >= Self.collar
            else { continue }
            let label = region.label
            seconds[label, default: 0] += VoiceActivity.windowSeconds
            if regions.contains(where: { $0.contains(middle) }) { marked[label, default: 0] += VoiceActivity.windowSeconds }
        }
        // How fast it runs is bench/voice's to measure, not this test's.
        for label in seconds.keys.sorted() {
            let share = (marked[label] ?? 0) / seconds[label]!
            print(String(format: "  %-18@ %6.1f s  %5.1f %% marked speech", label as NSString, seconds[label]!, share * 100))
            if label.hasPrefix("speech") {
                #expect(share >= 0.95, "\(label): only \(share) of its windows were found to be speech")
            } else {
                #expect(share <= 0.05, "\(label): \(share) of its windows were taken for speech")
            }
        }
        #expect(Set(seconds.keys).isSuperset(of: ["speech", "speech-over-music", "music", "music-beat", "silence", "applause"]))
    }
}
