#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads lines from a file descriptor with `poll`, so that the reading thread wakes up regularly
/// to notice cancellation and quiet periods. Used on a dedicated thread, never on the cooperative pool.
struct DescriptorLineReader {
    /// What one call to ``next(timeout:)`` found.
    enum Event {
        /// A complete line, without its terminator.
        case line(Substring)
        /// A line longer than ``maximumLineLength``, dropped up to its end.
        case oversize
        /// Nothing arrived within the timeout.
        case idle
        /// The end of the input (end of file, hang-up, or the other side closed).
        case end
    }

    let descriptor: Int32
    let maximumLineLength: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var discarding = false
    private var atEnd = false

    init(descriptor: Int32, maximumLineLength: Int = 4_096) {
        self.descriptor = descriptor
        self.maximumLineLength = maximumLineLength
        buffer.reserveCapacity(8_192)
    }

    /// The next line, or what happened instead, waiting at most `timeout` seconds for data.
    mutating func next(timeout: Double) throws(PositionSourceError) -> Event {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                let bytes = buffer[start..<newline]
                start = newline + 1
                if discarding {
                    discarding = false
                    continue
                }
                return .line(Substring(decoding: bytes, as: UTF8.self))
            }
            if buffer.count - start > maximumLineLength {
                buffer.removeAll(keepingCapacity: true)
                start = 0
                if !discarding {
                    discarding = true
                    return .oversize
                }
            }
            if atEnd {
                guard start < buffer.count, !discarding else { return .end }
                let rest = buffer[start...]
                start = buffer.count
                return .line(Substring(decoding: rest, as: UTF8.self))
            }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            var pollDescriptor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pollDescriptor, 1, Int32((timeout * 1_000).rounded(.up)))
            if ready < 0 {
                if errno == EINTR { continue }
                throw .cannotRead(path: "descriptor \(descriptor)", reason: String(cString: strerror(errno)))
            }
            if ready == 0 { return .idle }
            var chunk = [UInt8](repeating: 0, count: 4_096)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
            } else if count == 0 || errno == EIO {
                atEnd = true  // EOF; EIO is how Linux reports a pseudo-terminal whose other side closed
            } else if errno != EAGAIN && errno != EINTR {
                throw .cannotRead(path: "descriptor \(descriptor)", reason: String(cString: strerror(errno)))
            }
        }
    }
}
