import CFFmpeg

/// Where an MP4 file (QuickTime, m4a, m4b, mp4, mov) keeps each track's sample tables, read from
/// the box headers and a few fixed fields; the tables themselves stay in the file.
///
/// FFmpeg's demuxer turns those tables into an index of every packet, 24 bytes each and more while
/// it builds it: 75 MB per open input for a 20-hour AAC book. `MP4Head` and `MP4SampleCursor` use
/// this layout to show the demuxer only the first few seconds and to read the rest from the file.
struct MP4Layout {
    /// The movie's time scale (`mvhd`), in which edit lists give their durations.
    var movieTimescale: Int64
    var tracks: [MP4Track]

    /// Reads the layout, or nil when the data is not an MP4 file this reader can follow: another
    /// format, a fragmented MP4 (`moof`, `mvex`), a compressed or missing `moov`, boxes that do not
    /// nest. The demuxer then reads the file on its own, as it always could.
    static func read(from bytes: ByteInput) throws(AVIOFailure) -> MP4Layout? {
        guard let size = bytes.size, size >= 8 else { return nil }
        var reader = MP4BoxReader(bytes: bytes)
        let topLevel = try reader.children(in: 0..<size, topLevel: true)
        guard let first = topLevel.first, MP4FourCC.fileStarts.contains(first.type) else { return nil }
        guard !topLevel.contains(where: { $0.type == .moof }),
              let movie = topLevel.first(where: { $0.type == .moov }), movie.end <= size else { return nil }
        let boxes = try reader.children(of: movie)
        guard !boxes.contains(where: { $0.type == .mvex || $0.type == .cmov }),
              let header = boxes.first(where: { $0.type == .mvhd }) else { return nil }
        let movieTimescale = Int64(try reader.uint32(in: header, versioned: (12, 20)))
        guard movieTimescale > 0 else { return nil }
        var tracks: [MP4Track] = []
        for trak in boxes where trak.type == .trak {
            do {
                if let track = try MP4Track.read(trak, with: &reader) {
                    tracks.append(track)
                }
            } catch where error.code == steno_averror_invaliddata() {
                // A table that does not fit its box: FFmpeg reads that track as it can.
                continue
            }
        }
        return MP4Layout(movieTimescale: movieTimescale, tracks: tracks)
    }
}

/// A box: its type and where its header and payload lie in the file.
struct MP4Box {
    let type: MP4FourCC
    let start: Int64
    let payload: Int64
    let end: Int64
}

struct MP4FourCC: Hashable {
    let rawValue: UInt32

    init(_ text: StaticString) {
        rawValue = text.withUTF8Buffer { $0.reduce(0) { $0 << 8 | UInt32($1) } }
    }

    init(rawValue: UInt32) { self.rawValue = rawValue }

    static let ftyp = MP4FourCC("ftyp"), moov = MP4FourCC("moov"), mdat = MP4FourCC("mdat")
    static let moof = MP4FourCC("moof"), mvex = MP4FourCC("mvex"), cmov = MP4FourCC("cmov")
    static let mvhd = MP4FourCC("mvhd"), trak = MP4FourCC("trak"), tkhd = MP4FourCC("tkhd")
    static let edts = MP4FourCC("edts"), elst = MP4FourCC("elst"), mdia = MP4FourCC("mdia")
    static let mdhd = MP4FourCC("mdhd"), hdlr = MP4FourCC("hdlr"), minf = MP4FourCC("minf")
    static let stbl = MP4FourCC("stbl"), stsd = MP4FourCC("stsd"), stts = MP4FourCC("stts")
    static let stsc = MP4FourCC("stsc"), stsz = MP4FourCC("stsz"), stz2 = MP4FourCC("stz2")
    static let stco = MP4FourCC("stco"), co64 = MP4FourCC("co64"), ctts = MP4FourCC("ctts")
    static let soun = MP4FourCC("soun")

    /// Boxes an MP4 or QuickTime file may open with.
    static let fileStarts: Set<MP4FourCC> = [
        .ftyp, .moov, .mdat, MP4FourCC("free"), MP4FourCC("skip"), MP4FourCC("wide"), MP4FourCC("pnot"), MP4FourCC("uuid"),
    ]
}

/// Reads box headers and fixed fields through a `ByteInput`.
struct MP4BoxReader {
    let bytes: ByteInput
    /// Hostile files can declare millions of tiny boxes; real ones have a few dozen per level.
    private static let maximumChildren = 4096

    init(bytes: ByteInput) { self.bytes = bytes }

    func children(of box: MP4Box) throws(AVIOFailure) -> [MP4Box] {
        try children(in: box.payload..<box.end, topLevel: false)
    }

    /// The boxes laid end to end in `range`; stops at the first header that does not fit. At the
    /// top level the last box may run past the end of the file (an `mdat` of a cut download).
    func children(in range: Range<Int64>, topLevel: Bool) throws(AVIOFailure) -> [MP4Box] {
        var boxes: [MP4Box] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound, boxes.count < Self.maximumChildren {
            let header = try bytes.read(at: offset, count: 16)
            guard header.count >= 8 else { break }
            var size = Int64(Self.uint32(header, 0))
            let type = MP4FourCC(rawValue: Self.uint32(header, 4))
            var headerSize: Int64 = 8
            if size == 1 {
                guard header.count >= 16 else { break }
                size = Int64(bitPattern: Self.uint64(header, 8))
                headerSize = 16
            } else if size == 0 {
                size = range.upperBound - offset
            }
            guard size >= headerSize else { break }
            let end = offset + size
            if end > range.upperBound && !topLevel { break }
            boxes.append(MP4Box(type: type, start: offset, payload: offset + headerSize, end: end))
            if end <= offset { break }
            offset = end
        }
        return boxes
    }

    /// The first child of `box` of each type asked for, walking down the path.
    func child(_ path: MP4FourCC..., of box: MP4Box) throws(AVIOFailure) -> MP4Box? {
        var current = box
        for type in path {
            guard let next = try children(of: current).first(where: { $0.type == type }) else { return nil }
            current = next
        }
        return current
    }

    /// A 32-bit field of a full box at `offsets.0` bytes into the payload for version 0 and
    /// `offsets.1` for version 1 (whose times are 64-bit).
    func uint32(in box: MP4Box, versioned offsets: (Int64, Int64)) throws(AVIOFailure) -> UInt32 {
        let version = try bytes.read(at: box.payload, count: 1).first ?? 0
        let offset = version == 1 ? offsets.1 : offsets.0
        return try uint32(at: box.payload + offset, within: box)
    }

    func uint32(at offset: Int64, within box: MP4Box) throws(AVIOFailure) -> UInt32 {
        guard offset + 4 <= box.end else { throw AVIOFailure(code: steno_averror_invaliddata()) }
        let field = try bytes.read(at: offset, count: 4)
        guard field.count == 4 else { throw AVIOFailure(code: steno_averror_invaliddata()) }
        return Self.uint32(field, 0)
    }

    static func uint32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<(at + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func uint64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        bytes[at..<(at + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
