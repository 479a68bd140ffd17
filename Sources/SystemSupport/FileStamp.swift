#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file's identity and version as far as change detection cares: its modification time to the
/// nanosecond, its size and its inode (an editor or `mv` that replaces the file gives a new inode
/// even within the same clock tick).
///
/// Read with one `stat(2)`: Foundation's `attributesOfItem` also looks up the owner's and group's
/// names, which reads `/etc/passwd` and `/etc/group` on every call (seen in strace of the
/// subscriber's 2 s circles-file check and the dashboard's users-file check).
package struct FileStamp: Equatable, Sendable {
    package var modifiedSeconds: Int
    package var modifiedNanoseconds: Int
    package var size: Int
    package var inode: UInt64

    /// The stamp of the file at `path` (following symbolic links), or `nil` when it cannot be
    /// read (missing, no permission).
    package init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        modifiedSeconds = Int(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
        size = Int(info.st_size)
        inode = UInt64(info.st_ino)
    }
}
