/// The stored (uncompressed) entries of a zip file, as `torch.save` writes its default format since
/// PyTorch 1.6: `NAME/data.pkl`, then one entry per storage (`NAME/data/0`, ...), all stored, each
/// aligned to 64 bytes. Read from the central directory at the end; nothing is decompressed, and
/// an entry that is compressed is an error that says so.
struct ZipArchive {
    struct Entry {
        let name: String
        let range: Range<Int>
    }

    let entries: [String: Entry]

    /// "PK\u{3}\u{4}": a zip file's first local header.
    static let signature: [UInt8] = [0x50, 0x4B, 0x03, 0x04]

    static func isZip(_ bytes: [UInt8]) -> Bool { bytes.starts(with: signature) }

    init(bytes: [UInt8]) throws(VoiceModelError) {
        // The end-of-central-directory record: the last "PK\5\6" within its 22 bytes and the
        // comment's 65,535 after it.
        let lowest = max(0, bytes.count - 22 - 65_535)
        var end: Int?
        var position = bytes.count - 22
        while position >= lowest {
            if try Self.integer(bytes, at: position, size: 4) == 0x0605_4B50 {
                end = position
                break
            }
            position -= 1
        }
        guard let end else { throw VoiceModelError(.malformedModel, "a zip file without its central directory") }
        var count = try Self.integer(bytes, at: end + 10, size: 2)
        var directory = try Self.integer(bytes, at: end + 16, size: 4)
        if count == 0xFFFF || directory == 0xFFFF_FFFF {
            // Zip64: the locator just before the record points at the zip64 record.
            guard end >= 20, try Self.integer(bytes, at: end - 20, size: 4) == 0x0706_4B50 else {
                throw VoiceModelError(.malformedModel, "a zip64 file without its locator")
            }
            let record = try Self.integer(bytes, at: end - 12, size: 8)
            guard try Self.integer(bytes, at: record, size: 4) == 0x0606_4B50 else {
                throw VoiceModelError(.malformedModel, "a zip64 locator that points at no zip64 record")
            }
            count = try Self.integer(bytes, at: record + 32, size: 8)
            directory = try Self.integer(bytes, at: record + 48, size: 8)
        }
        var entries: [String: Entry] = [:]
        position = directory
        for _ in 0..<count {
            guard try Self.integer(bytes, at: position, size: 4) == 0x0201_4B50 else {
                throw VoiceModelError(.malformedModel, "a zip central directory entry without its signature")
            }
            let method = try Self.integer(bytes, at: position + 10, size: 2)
            var compressed = try Self.integer(bytes, at: position + 20, size: 4)
            var size = try Self.integer(bytes, at: position + 24, size: 4)
            let nameLength = try Self.integer(bytes, at: position + 28, size: 2)
            let extraLength = try Self.integer(bytes, at: position + 30, size: 2)
            let commentLength = try Self.integer(bytes, at: position + 32, size: 2)
            var local = try Self.integer(bytes, at: position + 42, size: 4)
            let name = String(decoding: try Self.slice(bytes, position + 46, nameLength), as: UTF8.self)
            // Zip64 sizes and offset, in that order, for each field saturated above.
            var extra = position + 46 + nameLength
            let extraEnd = extra + extraLength
            while extra + 4 <= extraEnd {
                let tag = try Self.integer(bytes, at: extra, size: 2)
                let length = try Self.integer(bytes, at: extra + 2, size: 2)
                if tag == 0x0001 {
                    var field = extra + 4
                    if size == 0xFFFF_FFFF { size = try Self.integer(bytes, at: field, size: 8); field += 8 }
                    if compressed == 0xFFFF_FFFF { compressed = try Self.integer(bytes, at: field, size: 8); field += 8 }
                    if local == 0xFFFF_FFFF { local = try Self.integer(bytes, at: field, size: 8) }
                }
                extra += 4 + length
            }
            guard method == 0, compressed == size else {
                throw VoiceModelError(.malformedModel, "zip entry \(name) is compressed (method \(method)); torch.save stores its entries")
            }
            guard try Self.integer(bytes, at: local, size: 4) == 0x0403_4B50 else {
                throw VoiceModelError(.malformedModel, "zip entry \(name) points at no local header")
            }
            let localName = try Self.integer(bytes, at: local + 26, size: 2)
            let localExtra = try Self.integer(bytes, at: local + 28, size: 2)
            let (start, startOverflow) = (local + 30).addingReportingOverflow(localName + localExtra)
            let (stop, stopOverflow) = start.addingReportingOverflow(size)
            guard !startOverflow, !stopOverflow, stop <= bytes.count else {
                throw VoiceModelError(.malformedModel, "zip entry \(name) runs past the end of the file")
            }
            entries[name] = Entry(name: name, range: start..<stop)
            position += 46 + nameLength + extraLength + commentLength
        }
        self.entries = entries
    }

    /// An unsigned little-endian integer of `size` bytes at `offset`, as an `Int`; an offset
    /// outside the file or a value too large for `Int` is a malformed file, never a trap.
    static func integer(_ bytes: [UInt8], at offset: Int, size: Int) throws(VoiceModelError) -> Int {
        guard offset >= 0, offset <= bytes.count - size else {
            throw VoiceModelError(.malformedModel, "the zip file ends inside a header")
        }
        var value: UInt64 = 0
        for index in 0..<size { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        guard let exact = Int(exactly: value) else { throw VoiceModelError(.malformedModel, "a zip field too large to be an offset") }
        return exact
    }

    private static func slice(_ bytes: [UInt8], _ offset: Int, _ count: Int) throws(VoiceModelError) -> ArraySlice<UInt8> {
        guard offset >= 0, count >= 0, offset <= bytes.count - count else {
            throw VoiceModelError(.malformedModel, "the zip file ends inside a header")
        }
        return bytes[offset..<offset + count]
    }
}
