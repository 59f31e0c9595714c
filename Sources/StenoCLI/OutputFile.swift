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
        let target = try Target(path: path)
        do {
            try target.write(data)
        } catch {
            target.abandon()
            throw error
        }
        try target.finish()
    }

    /// `write(_:to:)` for output made piece by piece: `body` is given a function that writes
    /// each piece as it comes (a transcript export writes a batch of segments at a time, so
    /// that the whole output never sits in memory). The file is replaced only once `body`
    /// returned and every piece was written and synced; if `body` throws, the old file stays
    /// and its error is thrown.
    static func stream(to path: String, _ body: (_ write: (Data) throws -> Void) async throws -> Void) async throws {
        let target = try Target(path: path)
        do {
            try await body { try target.write($0) }
        } catch {
            target.abandon()
            throw error
        }
        try target.finish()
    }

    /// An open output: a temporary file beside a regular file (or a new one), renamed over it
    /// at the end; a device or pipe itself.
    private struct Target {
        let path: String
        let descriptor: Int32
        let temporary: String?
        let mode: mode_t

        init(path: String) throws {
            self.path = path
            var status = stat()
            let exists = stat(path, &status) == 0
            let isRegular = !exists || (status.st_mode & S_IFMT) == S_IFREG
            // A replaced file keeps its permissions; a new one gets the usual 0666 less the umask.
            let mask = umask(0)
            umask(mask)
            mode = exists ? status.st_mode & 0o7777 : 0o666 & ~mask
            if isRegular {
                let url = URL(fileURLWithPath: path)
                var template = Array((url.deletingLastPathComponent().path + "/." + url.lastPathComponent + ".steno-XXXXXX").utf8CString)
                descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
                guard descriptor >= 0 else { throw OutputFile.failure(path, errno) }
                temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            } else {
                descriptor = open(path, O_WRONLY | O_CLOEXEC)
                guard descriptor >= 0 else { throw OutputFile.failure(path, errno) }
                temporary = nil
            }
        }

        func write(_ data: Data) throws {
            if let errorNumber = OutputFile.writeAll(data, to: descriptor) { throw OutputFile.failure(path, errorNumber) }
        }

        /// Syncs, closes and renames the temporary file over the path.
        func finish() throws {
            var errorNumber: Int32?
            if let temporary {
                if fsync(descriptor) != 0 { errorNumber = errno }
                if fchmod(descriptor, mode) != 0, errorNumber == nil { errorNumber = errno }
                if close(descriptor) != 0, errorNumber == nil { errorNumber = errno }
                if errorNumber == nil, rename(temporary, path) != 0 { errorNumber = errno }
                if errorNumber != nil { unlink(temporary) }
            } else if close(descriptor) != 0 {
                errorNumber = errno
            }
            if let errorNumber { throw OutputFile.failure(path, errorNumber) }
        }

        /// Closes without replacing anything.
        func abandon() {
            close(descriptor)
            if let temporary { unlink(temporary) }
        }
    }

    fileprivate static func failure(_ path: String, _ errorNumber: Int32) -> AdminError {
        AdminError(
            .invalidInput, "cannot write \(path): \(String(cString: strerror(errorNumber)))",
            hint: "nothing was written there; choose another file with -o")
    }

    fileprivate static func writeAll(_ data: Data, to descriptor: Int32) -> Int32? {
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
