/// Walks one track's samples in order, from any sample: where each lies in the file, its size and
/// its time. Memory holds a block of each table, whatever the length of the track.
final class MP4SampleCursor {
    struct Sample: Equatable {
        let index: Int
        let offset: Int64
        let size: Int
        /// On the stream's clock as FFmpeg gives it: the track's decode time plus `timeShift`.
        let time: Int64
        let duration: Int64
    }

    let track: MP4Track
    /// Added to the track's own decode times: minus the edit's start, as FFmpeg places packets.
    let timeShift: Int64
    private let durations: MP4TableReader
    private let chunks: MP4TableReader
    private let sizes: MP4TableReader
    private let chunkOffsets: MP4TableReader

    private var nextIndex = 0
    private var nextTime: Int64 = 0
    private var durationEntry = 0
    private var leftInDurationEntry = 0
    private var lastDuration: Int64 = 0
    private var chunk = 0
    private var chunkRun = 0
    private var leftInChunk = 0
    private var offset: Int64 = 0

    init(track: MP4Track, bytes: ByteInput) throws(AVIOFailure) {
        self.track = track
        self.timeShift = -(track.edits?.firstMediaTime ?? 0)
        durations = MP4TableReader(track.timeToSample, bytes: bytes)
        chunks = MP4TableReader(track.sampleToChunk, bytes: bytes)
        sizes = MP4TableReader(track.sampleSizes, bytes: bytes)
        chunkOffsets = MP4TableReader(track.chunkOffsets, bytes: bytes)
        try seek(toSample: 0)
    }

    /// The next sample, or nil past the last one.
    func next() throws(AVIOFailure) -> Sample? {
        guard nextIndex < track.sampleCount else { return nil }
        while leftInChunk == 0 {
            chunk += 1
            guard chunk < track.chunkOffsets.count else { return nil }
            while chunkRun + 1 < track.sampleToChunk.count, Int(try chunks.uint32(chunkRun + 1)) - 1 <= chunk {
                chunkRun += 1
            }
            leftInChunk = Int(try chunks.uint32(chunkRun, field: 1))
            offset = try chunkOffset(chunk)
        }
        let size = track.constantSampleSize > 0 ? Int(track.constantSampleSize) : Int(try sizes.uint32(nextIndex))
        let duration = durationEntry < track.timeToSample.count ? Int64(try durations.uint32(durationEntry, field: 1)) : lastDuration
        let sample = Sample(index: nextIndex, offset: offset, size: size, time: nextTime, duration: duration)
        lastDuration = duration
        offset += Int64(size)
        leftInChunk -= 1
        nextIndex += 1
        nextTime += duration
        if durationEntry < track.timeToSample.count {
            leftInDurationEntry -= 1
            if leftInDurationEntry <= 0 {
                durationEntry += 1
                try skipEmptyDurationEntries()
            }
        }
        return sample
    }

    /// Positions the cursor so that `next()` returns sample `target` (0-based).
    func seek(toSample target: Int) throws(AVIOFailure) {
        nextIndex = target
        // The decode time: the runs of equal durations before the target.
        var before = 0
        var time: Int64 = 0
        durationEntry = 0
        leftInDurationEntry = 0
        while durationEntry < track.timeToSample.count {
            let count = Int(try durations.uint32(durationEntry))
            let duration = Int64(try durations.uint32(durationEntry, field: 1))
            lastDuration = duration
            if before + count > target {
                leftInDurationEntry = before + count - target
                time += Int64(target - before) * duration
                break
            }
            before += count
            time += Int64(count) * duration
            durationEntry += 1
        }
        nextTime = time + timeShift
        // The chunk: runs of chunks with equal sample counts.
        var samplesBefore = 0
        chunk = track.chunkOffsets.count
        leftInChunk = 0
        for run in 0..<track.sampleToChunk.count {
            let (first, perChunk, runChunks) = try chunks.chunkRun(run, runs: track.sampleToChunk.count, chunks: track.chunkOffsets.count)
            let runSamples = runChunks * perChunk
            if perChunk > 0, samplesBefore + runSamples > target {
                let within = (target - samplesBefore) % perChunk
                chunk = first + (target - samplesBefore) / perChunk
                chunkRun = run
                leftInChunk = perChunk - within
                offset = try chunkOffset(chunk)
                if track.constantSampleSize > 0 {
                    offset += Int64(within) * Int64(track.constantSampleSize)
                } else {
                    for index in (target - within)..<target {
                        offset += Int64(try sizes.uint32(index))
                    }
                }
                return
            }
            samplesBefore += runSamples
        }
        // Past the samples the chunks hold: `next()` ends.
        nextIndex = track.sampleCount
    }

    /// The last sample that starts at or before `time` on the stream's clock (the first when
    /// `time` precedes it), as FFmpeg's backward seek picks its index entry.
    func sample(atOrBefore time: Int64) throws(AVIOFailure) -> Int {
        let target = time - timeShift
        guard target > 0 else { return 0 }
        var before = 0
        var start: Int64 = 0
        for entry in 0..<track.timeToSample.count {
            let count = Int(try durations.uint32(entry))
            let duration = Int64(try durations.uint32(entry, field: 1))
            guard count > 0 else { continue }
            let end = start + Int64(count) * duration
            if target < end {
                let index = duration > 0 ? before + Int((target - start) / duration) : before
                return min(index, track.sampleCount - 1)
            }
            before += count
            start = end
        }
        return max(0, min(before, track.sampleCount) - 1)
    }

    /// The sum of all samples' durations, on the track's own clock.
    func trackDuration() throws(AVIOFailure) -> Int64 {
        var total: Int64 = 0
        for entry in 0..<track.timeToSample.count {
            total += Int64(try durations.uint32(entry)) * Int64(try durations.uint32(entry, field: 1))
        }
        return total
    }

    private func skipEmptyDurationEntries() throws(AVIOFailure) {
        while durationEntry < track.timeToSample.count {
            leftInDurationEntry = Int(try durations.uint32(durationEntry))
            if leftInDurationEntry > 0 { return }
            durationEntry += 1
        }
    }

    private func chunkOffset(_ index: Int) throws(AVIOFailure) -> Int64 {
        track.chunkOffsets.entrySize == 8 ? Int64(bitPattern: try chunkOffsets.uint64(index)) : Int64(try chunkOffsets.uint32(index))
    }
}
