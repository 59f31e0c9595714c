import CMalloc
import Foundation

/// Keeps a process's resident memory from growing with the length of the recordings it opens.
///
/// FFmpeg's demuxers hold a file's whole packet index in blocks that grow by `realloc` (about
/// 30 bytes a packet: 7 MB for a 4-hour AAC file at 16 kHz, over 90 MB for 20 hours at 44.1 kHz).
/// glibc serves such blocks with `mmap` at first, but each time one is freed it raises its mmap
/// threshold to that size (up to 32 MB), so the next ones come from the heap arenas of whichever
/// threads opened the files, and stay there, fragmented: a worker reached 531 MB on a 4-hour
/// book and kept it while idle (`bench/fleet/memory`). A fixed threshold of 256 KB keeps every
/// large block in `mmap`, returned to the system when it is freed.
public enum MediaMemory {
    static let mmapThreshold: Int32 = 256 * 1024

    /// Fixes the threshold for the whole process, unless the operator set glibc's own
    /// `MALLOC_MMAP_THRESHOLD_`. Call once, early, in a long-running process that opens media.
    public static func keepLargeBlocksOutOfTheHeap() {
        guard ProcessInfo.processInfo.environment["MALLOC_MMAP_THRESHOLD_"] == nil else { return }
        _ = mallopt(M_MMAP_THRESHOLD, mmapThreshold)
    }
}
