import Foundation
import StenoPostgres
import StenoStore

/// Writes a command's output where the user asked, and says so when it could not: a full disk,
/// a closed pipe or a missing folder is an error with the system's reason, never a success.
enum OutputFile {
    /// A regular file (or a new one) is written to a temporary file beside it, synced and renamed,
    /// so a failed write leaves the old file whole; a device or pipe (`/dev/stdout`, a FIFO) is
    /// written in place, since renaming over it would replace the device itself.
    static func write(_ data: Data, to path: String) throws {
        var status = stat()
        let exists = stat(path, &status) == 0
        let isRegular = !exists || (status.st_mode & S_IFMT) == S_IFREG
        // A replaced file keeps its permissions; a new one gets the usual 0666 less the umask.
        let mask = umask(0)
        umask(mask)
        let mode = exists ? status.st_mode & 0o7777 : 0o666 & ~mask
        let result = isRegular ? writeReplacing(data, path: path, mode: mode) : writeInPlace(data, path: path)
        if let errorNumber = result {
            throw AdminError(
                .invalidInput, "cannot write \(path): \(String(cString: strerror(errorNumber)))",
                hint: "nothing was written there; choose another file with -o")
        }
    }

    /// The errno of the first failure, or nil.
    private static func writeReplacing(_ data: Data, path: String, mode: mode_t) -> Int32? {
        let url = URL(fileURLWithPath: path)
        var template = Array((url.deletingLastPathComponent().path + "/." + url.lastPathComponent + ".steno-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return errno }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var failure = writeAll(data, to: descriptor)
        if failure == nil, fsync(descriptor) != 0 { failure = errno }
        if fchmod(descriptor, mode) != 0, failure == nil { failure = errno }
        if close(descriptor) != 0, failure == nil { failure = errno }
        if failure == nil, rename(temporary, path) != 0 { failure = errno }
        if failure != nil { unlink(temporary) }
        return failure
    }

    private static func writeInPlace(_ data: Data, path: String) -> Int32? {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return errno }
        var failure = writeAll(data, to: descriptor)
        if close(descriptor) != 0, failure == nil { failure = errno }
        return failure
    }

    private static func writeAll(_ data: Data, to descriptor: Int32) -> Int32? {
        data.withUnsafeBytes { buffer -> Int32? in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
    }
}
