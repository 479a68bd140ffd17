import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP connection to a port on 127.0.0.1, for the tests and benchmarks that write a
/// protocol by hand (`RawHTTP`, a subscriber that holds its PUBACK back, the Recorder benchmark).
public enum LoopbackSocket {
    /// Connects to 127.0.0.1:`port` and returns the socket's file descriptor, which the caller
    /// closes. Throws `POSIXError` (`ECONNREFUSED` when nothing listens there).
    public static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        return fd
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    public static func isOpen(port: Int) -> Bool {
        guard let fd = try? connect(port: port) else { return false }
        close(fd)
        return true
    }
}
