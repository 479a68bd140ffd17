#if canImport(Glibc)
import Glibc
#endif

/// A thread of our own (a detached pthread) for work that blocks: libmosquitto's loop, a
/// position source's reader, the metrics listener. What Foundation's `Thread` did here;
/// FoundationEssentials has no `Thread`.
package enum OwnThread {
    /// Starts a thread named `name` (cut to the 15 bytes Linux keeps) that runs `body` and ends.
    /// The closure is kept alive until it returns.
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let work = Unmanaged.passRetained(Work(name: name, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, ownThreadMain, work)
        guard result == 0 else {
            Unmanaged<Work>.fromOpaque(work).release()
            // As Foundation's Thread did: a process that cannot start a thread cannot go on.
            fatalError("cannot start the thread \(name): \(String(cString: strerror(result)))")
        }
    }

    /// Names the calling thread (as `ps -L` and `top -H` show it) through
    /// `/proc/thread-self/comm`: Glibc's `pthread_setname_np` is not visible to Swift.
    fileprivate static func nameThisThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    fileprivate final class Work {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}

/// The new thread's entry: takes the work ``OwnThread/start(name:_:)`` retained, names the
/// thread and runs the work.
private func ownThreadMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    let work = Unmanaged<OwnThread.Work>.fromOpaque(context).takeRetainedValue()
    OwnThread.nameThisThread(work.name)
    work.body()
    return nil
}
