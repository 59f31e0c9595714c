/// The first chunks of a long track, as the demuxer is shown them: its sample tables and edit
/// shortened in place (entry counts, one run length, the edit's duration), so that FFmpeg indexes
/// a few seconds and treats them, priming and edit included, exactly as in the whole file.
///
/// The shortened tables end at a chunk boundary and stay consistent with each other; FFmpeg drops
/// the edit list of a track whose tables disagree ("wrong sample count").
struct MP4Head {
    /// Samples the demuxer sees.
    let samples: Int
    let patches: [BytePatch]

    /// How the patched track differs from the whole one after `samples`: the demuxer trims the
    /// last packet to the shortened edit, so packets are taken from it up to `handOver` only.
    var handOver: Int { samples - Self.margin }

    private static let margin = 8

    /// The head of `track` holding at least `minimumSamples` samples and reaching past the
    /// edit's start, or nil when the track is that short already, or laid out in a way this does
    /// not handle (a constant sample size, several edits, an empty edit).
    static func plan(_ track: MP4Track, minimumSamples: Int, movieTimescale: Int64, bytes: ByteInput) throws(AVIOFailure) -> MP4Head? {
        guard track.constantSampleSize == 0, track.sampleCount > 0 else { return nil }
        if let edits = track.edits, edits.count != 1 || edits.firstMediaTime < 0 || edits.firstDuration <= 0 {
            return nil
        }
        let durations = MP4TableReader(track.timeToSample, bytes: bytes)
        let mediaTime = track.edits?.firstMediaTime ?? 0
        // Past the edit's start, so that the packets handed over lie inside the edit.
        let wanted = max(minimumSamples, try samples(before: mediaTime, durations: durations) + 64) + margin
        guard wanted < track.sampleCount else { return nil }

        // Whole chunks until `wanted` samples; or, when `wanted` falls in the first chunk of a
        // run, that chunk cut short by lowering the run's samples per chunk (FFmpeg's muxer puts
        // a whole audio-only file in chunks of about a megabyte: minutes of audio).
        let runs = MP4TableReader(track.sampleToChunk, bytes: bytes)
        var samples = 0
        var chunkCount = 0
        var runCount = 0
        var shortenedRun: (run: Int, samples: Int)?
        for run in 0..<track.sampleToChunk.count where samples < wanted {
            let (first, perChunk, runChunks) = try runs.chunkRun(run, runs: track.sampleToChunk.count, chunks: track.chunkOffsets.count)
            guard first == chunkCount, runChunks > 0 else { return nil }
            runCount = run + 1
            if perChunk > 0, samples + perChunk > wanted {
                shortenedRun = (run, wanted - samples)
                chunkCount += 1
                samples = wanted
            } else if perChunk > 0, samples + runChunks * perChunk >= wanted {
                let needed = (wanted - samples + perChunk - 1) / perChunk
                chunkCount += needed
                samples += needed * perChunk
            } else {
                chunkCount += runChunks
                samples += runChunks * perChunk
            }
        }
        guard samples >= wanted, samples < track.sampleCount else { return nil }

        var patches: [BytePatch] = [
            .uint32(UInt32(samples), at: track.sampleSizes.countOffset),
            .uint32(UInt32(chunkCount), at: track.chunkOffsets.countOffset),
            .uint32(UInt32(runCount), at: track.sampleToChunk.countOffset),
        ]
        if let shortenedRun {
            let field = track.sampleToChunk.entriesOffset + Int64(shortenedRun.run) * Int64(track.sampleToChunk.entrySize) + 4
            patches.append(.uint32(UInt32(shortenedRun.samples), at: field))
        }
        guard let (timePatches, headDuration) = try runsPatch(track.timeToSample, samples: samples, reader: durations, timed: true) else { return nil }
        patches += timePatches
        if let composition = track.compositionOffsets {
            guard let (compositionPatches, _) = try runsPatch(composition, samples: samples, reader: MP4TableReader(composition, bytes: bytes), timed: false) else {
                return nil
            }
            patches += compositionPatches
        }
        if let edits = track.edits {
            let duration = (headDuration - mediaTime) * movieTimescale / track.timescale
            guard duration > 0 else { return nil }
            patches.append(edits.version == 1
                ? .uint64(UInt64(duration), at: edits.firstDurationOffset)
                : .uint32(UInt32(duration), at: edits.firstDurationOffset))
        }
        return MP4Head(samples: samples, patches: patches)
    }

    /// Shortens a table of runs (count, value) to its first `samples` samples: the entry count,
    /// and the count of the run that `samples` ends in. Returns the patches and, for durations,
    /// the decode time at which the head ends.
    private static func runsPatch(_ table: MP4Table, samples: Int, reader: MP4TableReader, timed: Bool) throws(AVIOFailure) -> ([BytePatch], Int64)? {
        var before = 0
        var time: Int64 = 0
        for entry in 0..<table.count {
            let count = Int(try reader.uint32(entry))
            let value = Int64(try reader.uint32(entry, field: 1))
            if before + count >= samples {
                let kept = samples - before
                time += Int64(kept) * (timed ? value : 0)
                return ([
                    .uint32(UInt32(entry + 1), at: table.countOffset),
                    .uint32(UInt32(kept), at: table.entriesOffset + Int64(entry) * Int64(table.entrySize)),
                ], time)
            }
            before += count
            time += Int64(count) * (timed ? value : 0)
        }
        return nil
    }

    /// How many samples start before `time` on the track's clock.
    private static func samples(before time: Int64, durations: MP4TableReader) throws(AVIOFailure) -> Int {
        var before = 0
        var start: Int64 = 0
        for entry in 0..<durations.table.count where start < time {
            let count = Int(try durations.uint32(entry))
            let duration = Int64(try durations.uint32(entry, field: 1))
            guard duration > 0 else { before += count; continue }
            let inEntry = min(Int64(count), (time - start + duration - 1) / duration)
            before += Int(inEntry)
            start += inEntry * duration
            if inEntry < Int64(count) { break }
        }
        return before
    }
}
