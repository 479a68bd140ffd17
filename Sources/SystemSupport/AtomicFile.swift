#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#endif

/// Replaces files so that a reader, or the file after a crash or power loss, has either the old
/// contents or the new, never a mix: the status file, the publisher's waypoints, the dashboard's
/// users file, the broker access rules.
package enum AtomicFile {
    /// Writes `data` to `path`: a temporary file beside it (created with `mode`), fsync, rename
    /// over `path`, fsync of the folder. On failure the temporary file is removed and `path` is
    /// as it was.
    ///
    /// - Throws: ``AtomicFileError`` saying which step failed and why.
    package static func write(_ data: Data, to path: String, mode: mode_t = 0o600) throws(AtomicFileError) {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw AtomicFileError(reason: "cannot create \(temporary): \(String(cString: strerror(errno)))") }
        _ = fchmod(fd, mode)  // the umask may have narrowed or (for 0644) kept it; say it exactly
        var failure: String?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = "cannot write \(temporary): \(String(cString: strerror(errno)))"
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = "cannot fsync \(temporary): \(String(cString: strerror(errno)))" }
        close(fd)
        if let failure {
            unlink(temporary)
            throw AtomicFileError(reason: failure)
        }
        guard rename(temporary, path) == 0 else {
            let reason = "cannot rename \(temporary) to \(path): \(String(cString: strerror(errno)))"
            unlink(temporary)
            throw AtomicFileError(reason: reason)
        }
        let folder = PathText.folder(of: path)
        let directory = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}

/// Why ``AtomicFile/write(_:to:mode:)`` failed: the step and the system's reason.
package struct AtomicFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// For example `cannot create /etc/x.tmp-12: Permission denied`.
    package var reason: String
    /// The reason.
    package var description: String { reason }
}
