import Foundation
#if canImport(Glibc)
import Glibc
#endif

enum FileHandleOutput {
    static func standardError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

extension Steno {
    /// Flushes standard output and exits 2 with the system's reason when it could not be written
    /// (a full disk, a closed pipe): a command whose output was lost has not succeeded.
    public static func finishStandardOutput() {
        // fflush(NULL) flushes every output stream, standard output among them, without touching
        // the C global `stdout` (not concurrency-safe in Swift 6).
        errno = 0
        guard fflush(nil) != 0 else { return }
        let reason = String(cString: strerror(errno == 0 ? EIO : errno))
        FileHandleOutput.standardError("error: cannot write to standard output: \(reason)\n")
        Glibc.exit(2)
    }
}
