import CFFmpeg

/// Owns a custom reading `AVIOContext` that shows a demuxer the bytes of a `ByteInput` with a few
/// of them replaced, and nothing else changed: offsets and length stay those of the recording.
///
/// The MP4 reader uses it to shorten the sample tables the demuxer sees (see `MP4Head`).
final class PatchedInput {
    private(set) var context: UnsafeMutablePointer<AVIOContext>!
    let bytes: ByteInput
    private let patches: [BytePatch]
    private var position: Int64 = 0

    private static let bufferSize: Int32 = 64 * 1024

    init(bytes: ByteInput, patches: [BytePatch]) throws(MediaError) {
        self.bytes = bytes
        self.patches = patches.sorted { $0.offset < $1.offset }
        guard let buffer = av_malloc(Int(Self.bufferSize))?.assumingMemoryBound(to: UInt8.self) else {
            throw MediaError(.internalFailure, "out of memory allocating an input buffer", ffmpegCall: "av_malloc")
        }
        let opaque = Unmanaged.passUnretained(self).toOpaque()
        guard let context = avio_alloc_context(buffer, Self.bufferSize, 0, opaque, { opaque, data, size in
            PatchedInput.from(opaque).read(data, Int(size))
        }, nil, { opaque, offset, whence in
            PatchedInput.from(opaque).seek(offset, whence)
        }) else {
            av_free(buffer)
            throw MediaError(.internalFailure, "out of memory allocating an input context", ffmpegCall: "avio_alloc_context")
        }
        self.context = context
    }

    private static func from(_ opaque: UnsafeMutableRawPointer?) -> PatchedInput {
        Unmanaged<PatchedInput>.fromOpaque(opaque!).takeUnretainedValue()
    }

    private func read(_ data: UnsafeMutablePointer<UInt8>?, _ size: Int) -> Int32 {
        guard let data, size > 0 else { return 0 }
        let filled: Int
        do {
            filled = try bytes.read(at: position, into: UnsafeMutableRawBufferPointer(start: data, count: size))
        } catch {
            return error.code
        }
        if filled == 0 { return steno_averror_eof() }
        let range = position..<(position + Int64(filled))
        for patch in patches where patch.range.overlaps(range) {
            for (index, byte) in patch.bytes.enumerated() where range.contains(patch.offset + Int64(index)) {
                data[Int(patch.offset + Int64(index) - position)] = byte
            }
        }
        position += Int64(filled)
        return Int32(filled)
    }

    private func seek(_ offset: Int64, _ whence: Int32) -> Int64 {
        let base: Int64
        switch whence & ~Int32(AVSEEK_FORCE) {
        case Int32(AVSEEK_SIZE): return bytes.size ?? Int64(steno_averror(ENOSYS))
        case SEEK_SET: base = 0
        case SEEK_CUR: base = position
        case SEEK_END:
            guard let size = bytes.size else { return Int64(steno_averror(ENOSYS)) }
            base = size
        default: return Int64(steno_averror(EINVAL))
        }
        let target = base + offset
        guard target >= 0 else { return Int64(steno_averror(EINVAL)) }
        position = target
        return target
    }

    deinit {
        av_freep(&context.pointee.buffer)
        avio_context_free(&context)
    }
}

/// Bytes that replace the recording's own at `offset`.
struct BytePatch: Equatable {
    let offset: Int64
    let bytes: [UInt8]

    var range: Range<Int64> { offset..<(offset + Int64(bytes.count)) }

    static func uint32(_ value: UInt32, at offset: Int64) -> BytePatch {
        BytePatch(offset: offset, bytes: withUnsafeBytes(of: value.bigEndian) { Array($0) })
    }

    static func uint64(_ value: UInt64, at offset: Int64) -> BytePatch {
        BytePatch(offset: offset, bytes: withUnsafeBytes(of: value.bigEndian) { Array($0) })
    }
}
