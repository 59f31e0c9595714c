import CFFmpeg

/// Owns a readable `AVIOContext` opened on a file or URL: the raw bytes of a recording, read at
/// any offset, through whichever protocol FFmpeg speaks (file, http, https).
///
/// The MP4 sample tables and the audio packets read past the demuxer's head both come from here,
/// so a book's packet index never has to be in memory.
final class ByteInput {
    let context: UnsafeMutablePointer<AVIOContext>
    /// The size in bytes, or nil when the protocol cannot tell (a stream without a length).
    let size: Int64?

    init(address: String, options: [String: String]) throws(AVIOFailure) {
        var context: UnsafeMutablePointer<AVIOContext>?
        var dictionary: OpaquePointer?
        for (key, value) in options {
            av_dict_set(&dictionary, key, value, 0)
        }
        defer { av_dict_free(&dictionary) }
        let opened = avio_open2(&context, address, AVIO_FLAG_READ, nil, &dictionary)
        guard opened >= 0, let context else { throw AVIOFailure(code: opened < 0 ? opened : steno_averror(EIO)) }
        self.context = context
        let size = avio_size(context)
        self.size = size >= 0 ? size : nil
    }

    /// Reads up to `buffer.count` bytes at `offset`; fewer only at the end of the data.
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(AVIOFailure) -> Int {
        guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), !buffer.isEmpty else { return 0 }
        if avio_tell(context) != offset {
            let sought = avio_seek(context, offset, SEEK_SET)
            if sought < 0 { throw AVIOFailure(code: Int32(truncatingIfNeeded: sought)) }
        }
        var filled = 0
        while filled < buffer.count {
            let chunk = Int32(min(buffer.count - filled, Int(Int32.max)))
            let read = avio_read(context, base + filled, chunk)
            if read == steno_averror_eof() || read == 0 { break }
            if read < 0 { throw AVIOFailure(code: read) }
            filled += Int(read)
        }
        return filled
    }

    /// Reads `count` bytes at `offset`; fewer only at the end of the data.
    func read(at offset: Int64, count: Int) throws(AVIOFailure) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let filled = bytes.withUnsafeMutableBytes { buffer in Result { () throws(AVIOFailure) in try read(at: offset, into: buffer) } }
        bytes.removeLast(count - (try filled.get()))
        return bytes
    }

    deinit {
        var context: UnsafeMutablePointer<AVIOContext>? = context
        avio_closep(&context)
    }
}

/// An FFmpeg I/O call that failed, with FFmpeg's error code (an `AVERROR`).
struct AVIOFailure: Error {
    let code: Int32
}
