#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One TCP connection to gpsd, made with plain POSIX sockets on the calling (dedicated) thread.
struct GpsdConnection: ~Copyable {
    let descriptor: Int32

    /// Why a connection attempt or an established connection failed.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Connects to `host:port`, trying each resolved address, each within `timeout` seconds.
    init(host: String, port: Int, timeout: Double) throws(Failure) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw Failure(description: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let info = next {
            next = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), info.pointee.ai_protocol)
            guard fd >= 0 else { continue }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 || errno == EINPROGRESS {
                var pollDescriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if poll(&pollDescriptor, 1, Int32(timeout * 1_000)) == 1 {
                    var error: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                    if error == 0 {
                        descriptor = fd
                        return
                    }
                    lastError = String(cString: strerror(error))
                } else {
                    lastError = "timed out after \(timeout) s"
                }
            } else {
                lastError = String(cString: strerror(errno))
            }
            close(fd)
        }
        throw Failure(description: "cannot connect to \(host):\(port): \(lastError)")
    }

    /// Sends `text` completely.
    func send(_ text: String) throws(Failure) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    var pollDescriptor = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&pollDescriptor, 1, 1_000)
                    continue
                }
                throw Failure(description: "cannot send to gpsd: \(String(cString: strerror(errno)))")
            }
            bytes = bytes.dropFirst(sent)
        }
    }

    deinit {
        close(descriptor)
    }
}
