import Foundation
import Logging
import StenoCore
import StenoInfrastructure
import StenoMedia

// Extracts every chunk of a book to 16 kHz mono FLAC with StenoMedia, then has the ffmpeg
// command line do the same work chunk by chunk, then times ffmpeg's decode-only floor, and
// prints the ratios. See bench/README.md. `steno-bench queue-drain` is bench/queue's drainer,
// `steno-bench voice` bench/voice's speech detector.

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// A number from the command line; a bad one ends the run with its one line, not a crash report.
func argument<Value>(_ read: () throws(SettingProblem) -> Value) -> Value {
    do {
        return try read()
    } catch {
        FileHandle.standardError.write(Data("steno-bench: \(error)\n".utf8))
        exit(2)
    }
}

func runFFmpeg(_ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    process.arguments = ["-nostdin", "-hide_banner", "-loglevel", "error"] + arguments
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw MediaError(.internalFailure, "ffmpeg \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
    }
}

if CommandLine.arguments.dropFirst().first == "voice" {
    try await VoiceSpeed.run(Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}

if CommandLine.arguments.dropFirst().first == "speakers" {
    try await SpeakerDiarization.run(Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}

if CommandLine.arguments.dropFirst().first == "speakers-speed" {
    try await SpeakerDiarization.speed(Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}

if CommandLine.arguments.dropFirst().first == "queue-drain" {
    try await QueueDrain.run(Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}

let arguments = CommandLine.arguments.dropFirst()
let bookPath = arguments.first ?? ".fixtures/bench-book.m4b"
let rounds = arguments.dropFirst().first.map { text in argument { () throws(SettingProblem) in try SettingValue.integer(text, name: "the rounds argument", in: 1...1000) } } ?? 3
guard FileManager.default.fileExists(atPath: bookPath) else {
    FileHandle.standardError.write(Data("steno-bench: \(bookPath) is missing; run scripts/make-fixtures --bench\n".utf8))
    exit(2)
}

let clock = ContinuousClock()
let info = try await MediaFile.probe(.file(path: bookPath))
let planner = try ChunkPlanner()
let noEnergy = EnergyProfile(start: .zero, windowDuration: MediaTime(milliseconds: 50), rms: [])
// Cut points come from the planner's limits alone: the benchmark measures extraction, and
// both sides extract exactly the same ranges.
let chunks = info.chapters.flatMap { chapter in planner.plan(chapter.start..<chapter.end, energy: noEnergy) }
print("book: \(bookPath), \(info.duration?.clockDescription ?? "?"), \(info.chapters.count) chapters, \(chunks.count) chunks (target 180 s, overlap 1.5 s)")

/// The chunks split between `lanes`, each extracted in order by a `MediaFile` of its own, all at
/// once: how a worker with several chunk jobs in flight uses the cores.
func extractInLanes(_ lanes: Int) async throws -> (chunks: Int, bytes: Int) {
    try await withThrowingTaskGroup(of: (Int, Int).self) { group in
        for lane in 0..<lanes {
            group.addTask {
                let file = MediaFile(.file(path: bookPath))
                var laneBytes = 0
                var laneChunks = 0
                for chunk in chunks.enumerated().filter({ $0.offset % lanes == lane }).map(\.element) {
                    laneBytes += try await file.encode(chunk.start..<chunk.end, format: .flac).data.count
                    laneChunks += 1
                }
                await file.close()
                return (laneChunks, laneBytes)
            }
        }
        return try await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
    }
}

/// The reference for the same: the ffmpeg command line, `lanes` processes at a time.
func ffmpegInLanes(_ lanes: Int) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for lane in 0..<lanes {
            group.addTask {
                for chunk in chunks.enumerated().filter({ $0.offset % lanes == lane }).map(\.element) {
                    try runFFmpeg(["-ss", "\(chunk.start)", "-to", "\(chunk.end)", "-i", bookPath,
                                   "-ac", "1", "-ar", "16000", "-sample_fmt", "s16", "-c:a", "flac", "-f", "flac", "-"])
                }
            }
        }
        try await group.waitForAll()
    }
}

let lanes = max(2, ProcessInfo.processInfo.activeProcessorCount)
var stenoBest = Double.infinity
var cliBest = Double.infinity
var floorBest = Double.infinity
var parallelBest = Double.infinity
var parallelCLIBest = Double.infinity
var bytes = 0
for round in 1...rounds {
    let stenoTime = try await clock.measure {
        let file = MediaFile(.file(path: bookPath))
        bytes = 0
        for chunk in chunks {
            bytes += try await file.encode(chunk.start..<chunk.end, format: .flac).data.count
        }
    }
    let decodeTime = try await clock.measure {
        let file = MediaFile(.file(path: bookPath))
        for chunk in chunks {
            _ = try await file.decode(chunk.start..<chunk.end) { _ in }
        }
    }
    let cliTime = try clock.measure {
        for chunk in chunks {
            try runFFmpeg(["-ss", "\(chunk.start)", "-to", "\(chunk.end)", "-i", bookPath,
                           "-ac", "1", "-ar", "16000", "-sample_fmt", "s16", "-c:a", "flac", "-f", "flac", "-"])
        }
    }
    let floorTime = try clock.measure { try runFFmpeg(["-i", bookPath, "-f", "null", "-"]) }
    var parallel = (chunks: 0, bytes: 0)
    let parallelTime = try await clock.measure { parallel = try await extractInLanes(lanes) }
    // Sizes may differ by a few bytes: FFmpeg's AAC decoder is not bit-exact across seeks.
    precondition(parallel.chunks == chunks.count, "every chunk extracted")
    let parallelCLITime = try await clock.measure { try await ffmpegInLanes(lanes) }
    parallelBest = min(parallelBest, seconds(parallelTime))
    parallelCLIBest = min(parallelCLIBest, seconds(parallelCLITime))
    stenoBest = min(stenoBest, seconds(stenoTime))
    cliBest = min(cliBest, seconds(cliTime))
    floorBest = min(floorBest, seconds(floorTime))
    print(String(format: "round %d: StenoMedia %.2f s (decode+resample alone %.2f s), ffmpeg CLI per chunk %.2f s, ffmpeg decode-only %.2f s",
                 round, seconds(stenoTime), seconds(decodeTime), seconds(cliTime), seconds(floorTime)))
    print(String(format: "round %d, %d chunks in flight: StenoMedia %.2f s (%.1f MB FLAC), ffmpeg CLI %d processes at once %.2f s",
                 round, lanes, seconds(parallelTime), Double(parallel.bytes) / 1e6, lanes, seconds(parallelCLITime)))
}
print(String(format: "best of %d: StenoMedia %.2f s (%.1f MB FLAC), ffmpeg CLI %.2f s, decode-only %.2f s", rounds, stenoBest, Double(bytes) / 1e6, cliBest, floorBest))
print(String(format: "ratio StenoMedia / ffmpeg CLI:  %.2f  (target < 1)", stenoBest / cliBest))
print(String(format: "ratio StenoMedia / decode-only: %.2f  (target <= 1.5)", stenoBest / floorBest))
print(String(format: "%d chunks in flight, as a worker runs them: StenoMedia %.2f s, ffmpeg CLI %.2f s", lanes, parallelBest, parallelCLIBest))
print(String(format: "ratio StenoMedia / ffmpeg CLI, %d in flight:  %.2f  (target < 1)", lanes, parallelBest / parallelCLIBest))
print(String(format: "ratio StenoMedia / decode-only, %d in flight: %.2f  (target <= 1.5)", lanes, parallelBest / floorBest))
