#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file read front to back in chunks the caller's buffer holds, so that reading a file of any
/// size costs only that buffer (no mapping, no whole-file copy). Owns its descriptor; call
/// ``close()`` when done.
struct FileChunkReader {
    private let path: String
    private var descriptor: Int32
    /// The read error that ended the input early, if one did.
    private(set) var failure: PositionSourceError?

    /// Opens the file at `path` for reading.
    init(path: String) throws(PositionSourceError) {
        self.path = path
        descriptor = openReadOnly(path)
        guard descriptor >= 0 else { throw .cannotRead(path: path, reason: String(cString: strerror(errno))) }
    }

    /// Fills `buffer` as far as the file goes; 0 at the end of the file or after a read error
    /// (kept in ``failure``).
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard failure == nil, descriptor >= 0, let base = buffer.baseAddress else { return 0 }
        var filled = 0
        while filled < buffer.count {
            let count = readBytes(descriptor, base + filled, buffer.count - filled)
            if count > 0 {
                filled += count
            } else if count == 0 {
                break
            } else if errno != EINTR {
                failure = .cannotRead(path: path, reason: String(cString: strerror(errno)))
                break
            }
        }
        return filled
    }

    /// Closes the file.
    mutating func close() {
        if descriptor >= 0 { _ = closeDescriptor(descriptor) }
        descriptor = -1
    }
}

/// `open(2)`, `read(2)` and `close(2)`, outside the type, whose own members would shadow them.
private func openReadOnly(_ path: String) -> Int32 { open(path, O_RDONLY | O_CLOEXEC) }
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
private func closeDescriptor(_ descriptor: Int32) -> Int32 { close(descriptor) }
