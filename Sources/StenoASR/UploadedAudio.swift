import Foundation
import StenoCore
import StenoMedia

/// Decodes an uploaded file, in any format FFmpeg reads, to 16 kHz mono PCM.
///
/// FFmpeg probes containers such as MP4 by seeking, so the upload is written to a private
/// temporary file that is removed as soon as it is decoded.
enum UploadedAudio {
    static func decode(_ bytes: [UInt8], filename: String) async throws(ASRError) -> [Int16] {
        let suffix = (filename as NSString).pathExtension.filter { $0.isLetter || $0.isNumber }.prefix(8)
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("steno-asr-\(UUID().uuidString)" + (suffix.isEmpty ? "" : ".\(suffix)")).path
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
            throw ASRError(status: 500, message: "could not store the upload for decoding", type: "server_error", code: "storage_failed")
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let media = MediaFile(.file(path: path))
        do throws(MediaError) {
            let info = try await media.probe()
            guard let duration = info.duration, duration > .zero else {
                throw MediaError(.truncated, "the file holds no audio")
            }
            let samples = try await media.decode(.zero..<duration)
            await media.close()
            return samples
        } catch {
            await media.close()
            throw ASRError(
                status: 400,
                message: "the uploaded file could not be decoded as audio: \(error.reason). Send a valid audio file (flac, mp3, ogg, wav, m4a, webm...).",
                code: "invalid_file", param: "file")
        }
    }
}
