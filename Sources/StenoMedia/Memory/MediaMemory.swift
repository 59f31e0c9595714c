import CMalloc
import Dispatch
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
///
/// glibc also gives each thread that allocates under contention an arena of its own, up to 8 per
/// core, and keeps the freed pages of each: capped at 2, a worker's peak on a book fell by 3 MB
/// (`MALLOC_ARENA_MAX=2` against the default, `bench/fleet/memory 1 2`).
public enum MediaMemory {
    static let mmapThreshold: Int32 = 256 * 1024
    static let arenas: Int32 = 2

    /// Fixes the threshold and the arenas for the whole process, unless the operator set glibc's
    /// own `MALLOC_MMAP_THRESHOLD_` or `MALLOC_ARENA_MAX`. Call once, early, in a long-running
    /// process that opens media.
    public static func keepLargeBlocksOutOfTheHeap() {
        let environment = ProcessInfo.processInfo.environment
        if environment["MALLOC_MMAP_THRESHOLD_"] == nil {
            _ = mallopt(M_MMAP_THRESHOLD, mmapThreshold)
        }
        if environment["MALLOC_ARENA_MAX"] == nil {
            _ = mallopt(M_ARENA_MAX, arenas)
        }
    }

    /// Hands the free pages inside the heap arenas back to the system, off the caller's thread:
    /// what a merge or a plan of a long chapter freed in small blocks would otherwise stay
    /// resident. For when the process falls idle.
    public static func returnFreePages() {
        DispatchQueue.global(qos: .utility).async {
            _ = malloc_trim(0)
        }
    }
}
