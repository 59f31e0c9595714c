import CFFmpeg
import StenoCore
import StenoInfrastructure

/// What the sample-table tests compare between the demuxer and `MP4Packets`, read here so that
/// only this module touches FFmpeg's structures.
extension MediaReader {
    /// One audio packet as the tests compare it: times, size, position, the flags that matter,
    /// a checksum of its bytes, and each side data's type and bytes (the encoder delay to skip,
    /// as FFmpeg's demuxer sets it).
    struct PacketSummary: Equatable, CustomStringConvertible {
        let pts: Int64, dts: Int64, duration: Int64, size: Int32, pos: Int64, flags: Int32, checksum: UInt64
        let sideData: [String]
        var description: String { "pts \(pts) dts \(dts) duration \(duration) size \(size) pos \(pos) flags \(flags) side data \(sideData)" }
    }

    /// Up to `limit` audio packets from where the reader stands.
    func audioPacketSummaries(limit: Int) throws(MediaError) -> [PacketSummary] {
        let packet = try Packet()
        var summaries: [PacketSummary] = []
        while summaries.count < limit {
            let read = packets.read(into: packet.pointer)
            if read < 0 { break }
            defer { packet.unref() }
            let value = packet.pointer.pointee
            guard value.stream_index == streamIndex else { continue }
            let checksum = FNV1a.hash(UnsafeBufferPointer(start: value.data, count: Int(value.size)))
            let sideData = (0..<Int(value.side_data_elems)).map { index in
                let element = value.side_data[index]
                return "\(element.type.rawValue): \(Array(UnsafeBufferPointer(start: element.data, count: element.size)))"
            }
            summaries.append(PacketSummary(
                pts: value.pts, dts: value.dts, duration: value.duration, size: value.size,
                pos: value.pos, flags: value.flags & (AV_PKT_FLAG_KEY | AV_PKT_FLAG_CORRUPT | AV_PKT_FLAG_DISCARD),
                checksum: checksum, sideData: sideData))
        }
        return summaries
    }

    /// `time` in the audio stream's time base, as its packets' times and seeks count.
    func streamTicks(_ time: MediaTime) -> Int64 {
        let timeBase = stream.pointee.time_base
        return time.ticks(timeBase: Int64(timeBase.num), Int64(timeBase.den))
    }

    /// How many entries the demuxer's index of the audio stream holds.
    var indexEntryCount: Int {
        Int(avformat_index_get_entries_count(stream))
    }
}
