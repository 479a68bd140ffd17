import ArgumentParser
import CMalloc
import Dispatch
import Glibc

/// The process entry: runs `WhereaboutsPub` on the concurrency pool while the main thread waits.
///
/// An `async` entry point ends the main thread with `dispatch_main()`, which calls `pthread_exit`;
/// glibc unwinds the thread's stack for that, which loads libgcc_s and reads the binary's unwind
/// tables (`.eh_frame_hdr`, `.eh_frame`), and the kernel maps about 1 MB of them that nothing else
/// reads (docs/publisher.md, "Resident memory"). A main thread that waits never unwinds.
///
/// Before any thread starts, the process keeps to one malloc arena, unless `MALLOC_ARENA_MAX` says
/// otherwise: glibc would give threads arenas of their own, each with partly used pages.
@main
enum Entry {
    static func main() {
        if getenv("MALLOC_ARENA_MAX") == nil {
            _ = mallopt(M_ARENA_MAX, 1)
        }
        let finished = DispatchSemaphore(value: 0)
        // Detached: `main` is on the main actor, whose queue this blocked thread never drains.
        Task.detached {
            await WhereaboutsPub.main()
            finished.signal()
        }
        finished.wait()
    }
}
