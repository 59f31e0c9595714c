import CFFmpeg

/// Owns a writable `AVIOContext` whose bytes land in memory, so chunks never touch the disk.
///
/// It can seek, so muxers that go back to fix up their header (FLAC's STREAMINFO with the
/// total sample count and MD5) write a complete file.
final class MemoryOutput {
    private(set) var context: UnsafeMutablePointer<AVIOContext>!
    private(set) var bytes: [UInt8] = []
    private var position = 0
    /// Writing stops with an error past this many bytes, so an oversized chunk fails early.
    let limit: Int?
    private(set) var exceededLimit = false
    /// The size the output would have reached with the write that passed the limit.
    private(set) var attemptedSize = 0

    private static let bufferSize: Int32 = 64 * 1024

    /// `reserving` bytes are allocated at once when the size is known roughly: growing by doubling
    /// would copy the bytes at each step and hold two copies meanwhile. Pages never written are
    /// never resident, so an estimate on the high side costs nothing.
    init(limit: Int?, reserving: Int = 0) throws(MediaError) {
        self.limit = limit
        bytes.reserveCapacity(min(reserving, limit.map { $0 + 1 } ?? reserving))
        guard let buffer = av_malloc(Int(Self.bufferSize))?.assumingMemoryBound(to: UInt8.self) else {
            throw MediaError(.internalFailure, "out of memory allocating an output buffer", ffmpegCall: "av_malloc")
        }
        let opaque = Unmanaged.passUnretained(self).toOpaque()
        guard let context = avio_alloc_context(buffer, Self.bufferSize, 1, opaque, nil, { opaque, data, size in
            MemoryOutput.from(opaque).write(data, Int(size))
        }, { opaque, offset, whence in
            MemoryOutput.from(opaque).seek(offset, whence)
        }) else {
            av_free(buffer)
            throw MediaError(.internalFailure, "out of memory allocating an output context", ffmpegCall: "avio_alloc_context")
        }
        self.context = context
    }

    private static func from(_ opaque: UnsafeMutableRawPointer?) -> MemoryOutput {
        Unmanaged<MemoryOutput>.fromOpaque(opaque!).takeUnretainedValue()
    }

    private func write(_ data: UnsafeMutablePointer<UInt8>?, _ size: Int) -> Int32 {
        guard let data, size > 0 else { return 0 }
        let end = position + size
        if let limit, end > limit {
            exceededLimit = true
            attemptedSize = max(attemptedSize, end)
            return steno_averror(EFBIG)
        }
        if position == bytes.count {
            // A muxer writes forward almost always: one copy, straight from FFmpeg's buffer.
            bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: size))
        } else {
            if end > bytes.count {
                bytes.append(contentsOf: [UInt8](repeating: 0, count: end - bytes.count))
            }
            bytes.withUnsafeMutableBufferPointer { target in
                (target.baseAddress! + position).update(from: data, count: size)
            }
        }
        position = end
        return Int32(size)
    }

    private func seek(_ offset: Int64, _ whence: Int32) -> Int64 {
        let base: Int
        switch whence & ~Int32(AVSEEK_FORCE) {
        case Int32(AVSEEK_SIZE): return Int64(bytes.count)
        case SEEK_SET: base = 0
        case SEEK_CUR: base = position
        case SEEK_END: base = bytes.count
        default: return Int64(steno_averror(EINVAL))
        }
        let target = base + Int(offset)
        guard target >= 0 else { return Int64(steno_averror(EINVAL)) }
        position = target
        return Int64(target)
    }

    deinit {
        // The muxer may have replaced the buffer; free whichever one the context holds now.
        av_freep(&context.pointee.buffer)
        avio_context_free(&context)
    }
}
