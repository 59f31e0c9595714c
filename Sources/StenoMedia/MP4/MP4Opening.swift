import CFFmpeg
import Logging

/// A long MP4 file prepared for reading: its layout, the head of each long track, and the
/// patched bytes the demuxer opens instead of the file.
final class MP4Opening {
    let bytes: ByteInput
    let layout: MP4Layout
    /// The head shown to the demuxer, by track ID, for each long track.
    let heads: [Int32: MP4Head]
    let input: PatchedInput

    private init(bytes: ByteInput, layout: MP4Layout, heads: [Int32: MP4Head], input: PatchedInput) {
        self.bytes = bytes
        self.layout = layout
        self.heads = heads
        self.input = input
    }

    /// Nil when the data is not an MP4 file, has no long track, or cannot be read this way; the
    /// caller opens it the ordinary way, which also reports any problem with its contents.
    /// Throws when the source cannot be opened at all (no such file, a server that refuses or
    /// never answers): opening it again would only wait as long once more.
    static func prepare(location: MediaLocation, options: [String: String], reading: SampleTableReading, logger: Logger) throws(AVIOFailure) -> MP4Opening? {
        let bytes = try ByteInput(address: location.ffmpegAddress, options: options)
        do throws(AVIOFailure) {
            guard let layout = try MP4Layout.read(from: bytes) else { return nil }
            var heads: [Int32: MP4Head] = [:]
            for track in layout.tracks where track.sampleCount > reading.tracksLongerThan {
                if let head = try MP4Head.plan(track, minimumSamples: reading.headSamples, movieTimescale: layout.movieTimescale, bytes: bytes) {
                    heads[track.id] = head
                }
            }
            guard !heads.isEmpty else { return nil }
            let input = try? PatchedInput(bytes: bytes, patches: heads.values.flatMap(\.patches))
            return input.map { MP4Opening(bytes: bytes, layout: layout, heads: heads, input: $0) }
        } catch {
            logger.debug("could not read the MP4 tables; the demuxer reads the file", metadata: [
                "ffmpeg_error": "\(FFmpegCall.message(for: error.code))",
            ])
            return nil
        }
    }

    /// The packets of `stream`, whose track the demuxer saw shortened to `head`, and the stream's
    /// duration set to the whole track's; nil when FFmpeg's index disagrees with the tables.
    func packets(input: InputFormatContext, stream: UnsafeMutablePointer<AVStream>, head: MP4Head) -> MP4Packets? {
        guard let track = layout.tracks.first(where: { $0.id == stream.pointee.id }) else { return nil }
        do throws(AVIOFailure) {
            guard let packets = try MP4Packets(
                input: input, bytes: bytes, stream: stream, track: track, head: head, movieTimescale: layout.movieTimescale)
            else { return nil }
            stream.pointee.duration = packets.duration
            return packets
        } catch {
            return nil
        }
    }
}
