import Foundation
#if canImport(Glibc)
import Glibc
#endif
import WhereaboutsTestSupport

/// A hand-written MQTT 3.1.1 subscriber over a plain TCP socket that acknowledges a QoS 1 message
/// only when told to: what a subscriber looks like to the broker when its node dies between a
/// PUBLISH and the PUBACK. MQTT client libraries acknowledge on their own (libmosquitto right
/// after the message callback), so they cannot hold an acknowledgement back.
///
/// Every call blocks (each read bounded by a timeout); the test runs them on a thread of their own
/// with ``run(_:)``, as `RawHTTP` does, so they do not starve the cooperative pool.
struct UnacknowledgingSubscriber: Sendable {
    /// A PUBLISH the broker sent.
    struct Delivery: Sendable {
        var topic: String
        var payload: String
        var packetID: UInt16
        /// The DUP flag: the broker sends this message again.
        var duplicate: Bool
    }

    struct ProtocolError: Error, CustomStringConvertible {
        var description: String
    }

    private let socket: Int32

    /// Connects to 127.0.0.1:`port` as `clientID` with clean session off and returns the
    /// subscriber and the CONNACK's session-present flag.
    static func connect(port: Int, clientID: String) throws -> (UnacknowledgingSubscriber, sessionPresent: Bool) {
        guard let fd = try? LoopbackSocket.connect(port: port) else {
            throw ProtocolError(description: "connection to port \(port) refused")
        }
        let subscriber = UnacknowledgingSubscriber(socket: fd)
        var accepted = false
        defer { if !accepted { subscriber.abandon() } }
        // CONNECT: protocol name, level 4 (3.1.1), flags 0 (clean session off), keepalive 60 s.
        let body = string("MQTT") + [4, 0x00, 0, 60] + string(clientID)
        try subscriber.send(0x10, body)
        guard let connack = try subscriber.read(timeout: 10), connack.type == 0x20, connack.body.count == 2 else {
            throw ProtocolError(description: "no CONNACK")
        }
        guard connack.body[1] == 0 else { throw ProtocolError(description: "CONNACK refused: \(connack.body[1])") }
        accepted = true
        return (subscriber, connack.body[0] & 1 == 1)
    }

    /// Subscribes to `topic` at QoS 1 and waits for the SUBACK.
    func subscribe(_ topic: String) throws {
        try send(0x82, [0, 1] + Self.string(topic) + [1])
        while let packet = try read(timeout: 15) {
            if packet.type == 0x90 { return }
        }
        throw ProtocolError(description: "no SUBACK")
    }

    /// The next PUBLISH within `timeout` seconds (PINGREQ keeps the connection alive meanwhile), or
    /// `nil`; it is not acknowledged.
    func nextDelivery(timeout: Double) throws -> Delivery? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard let packet = try read(timeout: min(5, max(0.1, deadline.timeIntervalSinceNow))) else {
                try send(0xC0, [])
                continue
            }
            guard packet.type == 0x30 else { continue }
            let body = packet.body
            guard body.count >= 2 else { throw ProtocolError(description: "short PUBLISH") }
            let length = Int(body[0]) << 8 | Int(body[1])
            let qos = (packet.flags >> 1) & 3
            guard qos == 1, body.count >= 4 + length else { throw ProtocolError(description: "PUBLISH at QoS \(qos)") }
            let topic = String(decoding: body[2..<(2 + length)], as: UTF8.self)
            let packetID = UInt16(body[2 + length]) << 8 | UInt16(body[3 + length])
            let payload = String(decoding: body[(4 + length)...], as: UTF8.self)
            return Delivery(topic: topic, payload: payload, packetID: packetID, duplicate: packet.flags & 0x08 != 0)
        }
        return nil
    }

    /// Acknowledges `delivery` (PUBACK).
    func acknowledge(_ delivery: Delivery) throws {
        try send(0x40, [UInt8(delivery.packetID >> 8), UInt8(delivery.packetID & 0xFF)])
    }

    /// Closes the socket without a DISCONNECT, as a process that dies would.
    func abandon() {
        close(socket)
    }

    private static func string(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        return [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
    }

    private func send(_ header: UInt8, _ body: [UInt8]) throws {
        var packet = [header]
        var length = body.count
        repeat {
            var byte = UInt8(length % 128)
            length /= 128
            if length > 0 { byte |= 0x80 }
            packet.append(byte)
        } while length > 0
        packet += body
        guard write(socket, packet, packet.count) == packet.count else { throw ProtocolError(description: "write failed") }
    }

    /// One packet, or `nil` when none began within `timeout` seconds.
    private func read(timeout: Double) throws -> (type: UInt8, flags: UInt8, body: [UInt8])? {
        var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return nil }
        let header = try exactly(1)[0]
        var length = 0, multiplier = 1
        while true {
            let byte = try exactly(1)[0]
            length += Int(byte & 0x7F) * multiplier
            multiplier *= 128
            if byte & 0x80 == 0 { break }
        }
        return (header & 0xF0, header & 0x0F, try exactly(length))
    }

    private func exactly(_ count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 10_000) > 0 else { throw ProtocolError(description: "a packet stopped half-way") }
            let read = bytes.withUnsafeMutableBytes { Glibc.read(socket, $0.baseAddress! + done, count - done) }
            guard read > 0 else { throw ProtocolError(description: "connection closed") }
            done += read
        }
        return bytes
    }
}
