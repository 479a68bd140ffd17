import ArgumentParser
import Dispatch

/// The process entry: runs `WhereaboutsPub` on the concurrency pool while the main thread waits.
///
/// An `async` entry point ends the main thread with `dispatch_main()`, which calls `pthread_exit`;
/// glibc unwinds the thread's stack for that, which loads libgcc_s and reads the binary's unwind
/// tables (`.eh_frame_hdr`, `.eh_frame`), and the kernel maps about 1 MB of them that nothing else
/// reads (docs/publisher.md, "Resident memory"). A main thread that waits never unwinds.
@main
enum Entry {
    static func main() {
        let finished = DispatchSemaphore(value: 0)
        // Detached: `main` is on the main actor, whose queue this blocked thread never drains.
        Task.detached {
            await WhereaboutsPub.main()
            finished.signal()
        }
        finished.wait()
    }
}
