#if canImport(Glibc)
import Glibc
#endif

/// Gives memory that the process freed back to the system.
///
/// glibc's allocator keeps freed memory in its arenas (one per thread that allocated, so one per
/// event loop) for reuse, and returns it only when the top of a heap is free. After hundreds of
/// WebSocket clients leave, their buffers are free but scattered, and resident memory stayed
/// 60 MB above where it started (issue 9: 38 -> 100 MB with 1,800 connections, never given
/// back). glibc's `malloc_trim(0)` releases the free pages of every arena (glibc 2.8 and later).
/// It is declared in `<malloc.h>`, which the Glibc module does not import, so it is looked up by
/// name once.
enum MemoryRelease {
    #if canImport(Glibc)
    private typealias Trim = @convention(c) (Int) -> Int32
    private static let trim: Trim? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim")
        .map { unsafeBitCast($0, to: Trim.self) }
    #endif

    /// Releases free heap memory; returns whether any was released (always `false` where glibc
    /// is not the allocator).
    @discardableResult
    static func releaseFreeMemory() -> Bool {
        #if canImport(Glibc)
        return trim?(0) == 1
        #else
        return false
        #endif
    }
}
