import Foundation
import WhereaboutsTestSupport

/// A small tmpfs mounted for one test (needs root), to fill a file system on purpose; unmounted
/// when released.
final class SmallDisk: Sendable {
    /// The mount point.
    let path: URL

    /// Whether this process may mount file systems.
    static var isAvailable: Bool { getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount") }

    /// Mounts a tmpfs of `size` (`mount -t tmpfs -o size=...`, e.g. `200k`) on a new folder.
    init(size: String) throws {
        path = try TestPaths.makeTemporaryDirectory(prefix: "small-disk")
        try ToolRun.runChecked("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path.path])
    }

    /// Bytes free on it now.
    var freeBytes: Int {
        var info = statvfs()
        guard statvfs(path.path, &info) == 0 else { return -1 }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    deinit { try? ToolRun.runChecked("/bin/umount", ["-l", path.path]) }
}
