import CFFmpeg

/// Reads the entries of one sample table from the file, a block at a time: what a cursor walks
/// stays in memory, never the whole table.
final class MP4TableReader {
    let table: MP4Table
    private let bytes: ByteInput
    private var blockStart = 0
    private var block: [UInt8] = []

    /// 1,024 entries: 4-12 KB a block, so that walking a table costs few reads.
    private static let blockEntries = 1024

    init(_ table: MP4Table, bytes: ByteInput) {
        self.table = table
        self.bytes = bytes
    }

    /// Field `field` (a 32-bit word) of entry `index`.
    func uint32(_ index: Int, field: Int = 0) throws(AVIOFailure) -> UInt32 {
        let at = try locate(index) + field * 4
        return MP4BoxReader.uint32(block, at)
    }

    /// Entry `index` read as one 64-bit word (`co64`).
    func uint64(_ index: Int) throws(AVIOFailure) -> UInt64 {
        MP4BoxReader.uint64(block, try locate(index))
    }

    private func locate(_ index: Int) throws(AVIOFailure) -> Int {
        guard index >= 0, index < table.count else { throw AVIOFailure(code: steno_averror_invaliddata()) }
        let size = table.entrySize
        if index < blockStart || (index - blockStart + 1) * size > block.count {
            blockStart = index
            let count = min(Self.blockEntries, table.count - index)
            block = try bytes.read(at: table.entriesOffset + Int64(index) * Int64(size), count: count * size)
            guard block.count == count * size else { throw AVIOFailure(code: steno_averror_invaliddata()) }
        }
        return (index - blockStart) * size
    }
}
