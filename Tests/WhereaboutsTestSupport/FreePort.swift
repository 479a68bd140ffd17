import Foundation
internal import WhereaboutsCore
internal import SystemSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Loopback TCP helpers for tests that run servers in parallel.
public enum FreePort {
    /// A TCP port on 127.0.0.1 that was free a moment ago, below the kernel's ephemeral range,
    /// and never handed out before in this process.
    ///
    /// Below the ephemeral range because a broker restarted on its old port (fault tests) found it
    /// taken by the kernel as the local port of some outgoing connection of a parallel test
    /// ("Address already in use"); never twice, so that two tests never share one.
    public static func find() throws -> Int {
        let (low, _) = ephemeralRange()
        let candidates = 20_000..<max(20_001, low)
        for _ in 0..<200 {
            let port = Int.random(in: candidates)
            guard handedOut.withLock({ $0.insert(port).inserted }) else { continue }
            if canBind(port) { return port }
        }
        throw POSIXError(.EADDRINUSE)
    }

    /// Ports already returned by ``find()``. A `LockedState`, not a `Mutex`: the MQTT tests that
    /// find ports run under the thread sanitizer, which cannot see `Mutex`'s ordering on Linux and
    /// reported two `find()` calls from parallel tests as a race (docs/architecture.md, "Locks").
    private static let handedOut = LockedState(Set<Int>())

    /// The kernel's range of ports for outgoing connections (`ip_local_port_range`).
    private static func ephemeralRange() -> (Int, Int) {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let numbers = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
        return numbers.count == 2 ? (numbers[0], numbers[1]) : (32_768, 60_999)
    }

    /// Whether a listening socket could be bound to 127.0.0.1:`port` now.
    private static func canBind(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port` right now.
    public static func isAccepting(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
