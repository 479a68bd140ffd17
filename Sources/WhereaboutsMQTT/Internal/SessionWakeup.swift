import CMosquitto
#if canImport(Glibc)
import Glibc
#endif

/// The eventfd that wakes the session thread from `poll` when another thread has queued a
/// packet (publish, subscribe, unsubscribe) or asked the session to stop.
///
/// libmosquitto wakes its own `mosquitto_loop` through an internal socket pair, which the
/// session thread no longer waits on (`MosquittoSession+Loop.swift`), so the wake-up is ours.
/// It is written only when the session thread has said, under the session lock, that it is
/// about to wait (``SessionState/takeWakeRequest()``): a thread that queues a packet while the
/// session thread is busy costs no system call, since the busy thread writes what is queued at
/// the end of its pass anyway.
///
/// The descriptor lives as long as this object, which the session owns: a thread that calls
/// ``signal()`` holds the session, so the descriptor cannot be closed (and its number reused)
/// under it.
final class SessionWakeup: Sendable {
    // Sendable: `descriptor` is immutable; eventfd reads and writes are thread-safe.
    let descriptor: Int32

    /// Creates the eventfd (non-blocking, closed on exec).
    init() throws(MQTTError) {
        let descriptor = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard descriptor >= 0 else {
            throw .library(
                code: MosquittoCode.errno,
                detail: "could not create the connection thread's wake-up eventfd (\(String(cString: strerror(errno))))")
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Makes the descriptor readable, so that a `poll` on it returns (any thread).
    func signal() {
        var one: UInt64 = 1
        _ = write(descriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Makes the descriptor unreadable again (the session thread, after `poll` reported it).
    func reset() {
        var count: UInt64 = 0
        _ = read(descriptor, &count, MemoryLayout<UInt64>.size)
    }
}
