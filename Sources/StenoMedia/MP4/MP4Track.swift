/// One track of an MP4 file: its identity, clock, edit and where its sample tables lie.
struct MP4Track {
    /// `tkhd`'s track ID, which FFmpeg gives its stream as `AVStream.id`.
    let id: Int32
    let isAudio: Bool
    /// Ticks per second of the track's own clock (`mdhd`); FFmpeg's stream time base is its inverse.
    let timescale: Int64
    /// The edit list, when there is one.
    let edits: MP4Edits?
    /// Samples per run of equal durations (`stts`): count and duration, 8 bytes an entry.
    let timeToSample: MP4Table
    /// Chunks per run of equal sample counts (`stsc`): first chunk, samples per chunk, description.
    let sampleToChunk: MP4Table
    /// The size of each sample (`stsz`), 4 bytes an entry; empty when every sample has `constantSampleSize`.
    let sampleSizes: MP4Table
    let constantSampleSize: UInt32
    let sampleCount: Int
    /// Where each chunk starts in the file (`stco` 4 bytes, `co64` 8 bytes an entry).
    let chunkOffsets: MP4Table
    /// Composition offsets (`ctts`), video only in practice.
    let compositionOffsets: MP4Table?

    /// Reads a `trak`; nil when it lacks a table this reader needs or one does not fit its box
    /// (FFmpeg then reads the file on its own).
    static func read(_ trak: MP4Box, with reader: inout MP4BoxReader) throws(AVIOFailure) -> MP4Track? {
        guard let header = try reader.child(.tkhd, of: trak),
              let mediaHeader = try reader.child(.mdia, .mdhd, of: trak),
              let handler = try reader.child(.mdia, .hdlr, of: trak),
              let table = try reader.child(.mdia, .minf, .stbl, of: trak) else { return nil }
        let id = try reader.uint32(in: header, versioned: (12, 20))
        let timescale = Int64(try reader.uint32(in: mediaHeader, versioned: (12, 20)))
        let handlerType = try reader.uint32(at: handler.payload + 8, within: handler)
        let tables = try reader.children(of: table)
        func box(_ type: MP4FourCC) -> MP4Box? { tables.first { $0.type == type } }
        guard timescale > 0, id <= UInt32(Int32.max), box(.stz2) == nil,
              let stts = box(.stts), let stsc = box(.stsc), let stsz = box(.stsz),
              let chunks = box(.stco) ?? box(.co64),
              let timeToSample = try MP4Table.read(stts, countAt: 4, entrySize: 8, with: reader),
              let sampleToChunk = try MP4Table.read(stsc, countAt: 4, entrySize: 12, with: reader),
              let chunkOffsets = try MP4Table.read(chunks, countAt: 4, entrySize: chunks.type == .co64 ? 8 : 4, with: reader)
        else { return nil }
        // Several sample descriptions make FFmpeg read only some samples of the track; such
        // tracks stay with the demuxer.
        guard let descriptions = box(.stsd), try reader.uint32(at: descriptions.payload + 4, within: descriptions) == 1 else { return nil }
        let constantSampleSize = try reader.uint32(at: stsz.payload + 4, within: stsz)
        let sampleCount = Int(try reader.uint32(at: stsz.payload + 8, within: stsz))
        let sampleSizes: MP4Table
        if constantSampleSize == 0 {
            guard let sizes = try MP4Table.read(stsz, countAt: 8, entrySize: 4, with: reader) else { return nil }
            sampleSizes = sizes
        } else {
            sampleSizes = MP4Table(countOffset: stsz.payload + 8, count: 0, entrySize: 4)
        }
        var compositionOffsets: MP4Table?
        if let ctts = box(.ctts) {
            guard let offsets = try MP4Table.read(ctts, countAt: 4, entrySize: 8, with: reader) else { return nil }
            compositionOffsets = offsets
        }
        var edits: MP4Edits?
        if let list = try reader.child(.edts, .elst, of: trak) {
            edits = try MP4Edits.read(list, with: reader)
        }
        return MP4Track(
            id: Int32(id), isAudio: MP4FourCC(rawValue: handlerType) == .soun, timescale: timescale, edits: edits,
            timeToSample: timeToSample, sampleToChunk: sampleToChunk, sampleSizes: sampleSizes,
            constantSampleSize: constantSampleSize, sampleCount: sampleCount, chunkOffsets: chunkOffsets,
            compositionOffsets: compositionOffsets)
    }
}

/// A table of fixed-size entries after a 32-bit entry count.
struct MP4Table {
    /// The file offset of the entry count.
    let countOffset: Int64
    let count: Int
    let entrySize: Int

    var entriesOffset: Int64 { countOffset + 4 }

    /// Nil when the entries the count declares do not fit in the box.
    static func read(_ box: MP4Box, countAt offset: Int64, entrySize: Int, with reader: MP4BoxReader) throws(AVIOFailure) -> MP4Table? {
        let count = Int(try reader.uint32(at: box.payload + offset, within: box))
        let table = MP4Table(countOffset: box.payload + offset, count: count, entrySize: entrySize)
        guard table.entriesOffset + Int64(count) * Int64(entrySize) <= box.end else { return nil }
        return table
    }
}

/// An edit list (`elst`): how the track's samples are placed on the movie's timeline.
struct MP4Edits {
    let count: Int
    let version: UInt8
    /// The first edit: its duration in the movie's time scale, and where on the track's clock it
    /// starts (-1 for an empty edit). AAC's encoder delay is such a start (1024 or 2112 ticks).
    let firstDuration: Int64
    let firstMediaTime: Int64
    /// The file offset of the first edit's duration field.
    let firstDurationOffset: Int64

    static func read(_ box: MP4Box, with reader: MP4BoxReader) throws(AVIOFailure) -> MP4Edits? {
        let head = try reader.bytes.read(at: box.payload, count: 8 + 16)
        guard head.count >= 16 else { return nil }
        let version = head[0]
        let count = Int(MP4BoxReader.uint32(head, 4))
        let duration: Int64
        let mediaTime: Int64
        if version == 1 {
            guard head.count >= 24 else { return nil }
            duration = Int64(bitPattern: MP4BoxReader.uint64(head, 8))
            mediaTime = Int64(bitPattern: MP4BoxReader.uint64(head, 16))
        } else {
            duration = Int64(MP4BoxReader.uint32(head, 8))
            mediaTime = Int64(Int32(bitPattern: MP4BoxReader.uint32(head, 12)))
        }
        return MP4Edits(count: count, version: version, firstDuration: duration, firstMediaTime: mediaTime, firstDurationOffset: box.payload + 8)
    }
}
