import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A regular file mapped read-only into memory, read front to back, whose pages the reader hands
/// back once it has passed them (``release(before:)``), so a file of any size costs only the
/// pages near the read position in resident memory.
final class MappedFile: ContiguousBytes {
    private let base: UnsafeMutableRawPointer?
    private let count: Int
    private let descriptor: Int32
    private var released = 0

    /// How far behind the read position pages are kept (the scanner may look back at a tag name).
    static let keepBehind = 1 << 20
    /// How much must have been passed before pages are handed back (one call per so many bytes).
    static let releaseStep = 4 << 20

    /// Maps the regular file at `url`; nil when it is not a regular file or cannot be mapped (a
    /// pipe, a device: read it whole instead).
    init?(url: URL) {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            return nil
        }
        count = Int(info.st_size)
        descriptor = fd
        if count == 0 {
            base = nil
            return
        }
        guard let mapped = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            close(fd)
            return nil
        }
        madvise(mapped, count, MADV_SEQUENTIAL)
        base = mapped
    }

    /// Hands the pages before `offset` (minus ``keepBehind``) back to the kernel. Reading them
    /// again stays correct (they are read from the file again).
    func release(before offset: Int) {
        guard let base else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let end = max(0, min(offset, count) - Self.keepBehind) / page * page
        // Forward by a step, or back at the start of a second pass over the file.
        guard end >= released + Self.releaseStep || end + Self.releaseStep <= released else { return }
        madvise(base, end, MADV_DONTNEED)
        released = end
    }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    deinit {
        if let base { munmap(base, count) }
        close(descriptor)
    }
}
