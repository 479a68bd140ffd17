import Foundation
import NIOCore
import NIOPosix

// Hand-written on purpose, measured: the product's MQTT client (libmosquitto) drives each
// connection from a thread of its own, and 10,000 threads do not fit this 2-core machine. This
// is the least of MQTT 3.1.1 a simulated device needs (CONNECT, CONNACK, PUBLISH at QoS 1,
// PUBACK; SUBSCRIBE at QoS 0, SUBACK and incoming QoS 0 PUBLISH for its receipts; for the
// benchmark's own persistent session, a session kept and SUBSCRIBE and PUBLISH at QoS 1), multiplexed
// over the NIO event loops of one process. It is not product code.

/// One simulated device's connection.
final class MQTTLoadClient: @unchecked Sendable {  // all state is touched on `channel.eventLoop` only
    let clientID: String
    private let channel: Channel
    private var nextPacketID: UInt16 = 1
    private var acknowledged: [UInt16: (Int, ContinuousClock.Instant) -> Void] = [:]
    /// Called once, on the event loop, when the connection closes.
    var onClose: (@Sendable () -> Void)?
    /// Called on the event loop for each message the broker sends (topic, payload).
    var onMessage: (@Sendable (String, ByteBuffer) -> Void)?

    private init(clientID: String, channel: Channel) {
        self.clientID = clientID
        self.channel = channel
    }

    /// Connects and waits for the CONNACK (a clean session unless `cleanSession` is false).
    static func connect(
        host: String, port: Int, clientID: String, credentials: (String, String)?, group: EventLoopGroup, cleanSession: Bool = true
    ) async throws -> MQTTLoadClient {
        let connack = group.next().makePromise(of: Void.self)
        let handler = MQTTLoadHandler(connack: connack)
        do {
            let channel = try await ClientBootstrap(group: group)
                .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                .connectTimeout(.seconds(30))
                .channelInitializer { channel in
                    channel.pipeline.addHandler(ByteToMessageHandler(MQTTPacketDecoder())).flatMap {
                        channel.pipeline.addHandler(handler)
                    }
                }
                .connect(host: host, port: port).get()
            let client = MQTTLoadClient(clientID: clientID, channel: channel)
            handler.client = client
            var buffer = channel.allocator.buffer(capacity: 64)
            MQTTPacketEncoder.connect(clientID: clientID, keepAlive: 600, credentials: credentials, cleanSession: cleanSession, into: &buffer)
            try await channel.writeAndFlush(buffer)
            try await connack.futureResult.get()
            return client
        } catch {
            // A refused TCP connection (a killed node) never reaches the handler: complete the
            // promise here, or NIO reports it leaked (a crash in debug builds).
            connack.fail(error)
            throw error
        }
    }

    /// Publishes at QoS 1; `onAck` runs on the event loop when the PUBACK arrives.
    func publish(topic: String, payload: String, retain: Bool, onAck: @escaping @Sendable (ContinuousClock.Instant) -> Void) {
        channel.eventLoop.execute { [self] in
            let id = nextPacketID
            nextPacketID = nextPacketID == UInt16.max ? 1 : nextPacketID + 1
            acknowledged[id] = { _, at in onAck(at) }
            var buffer = channel.allocator.buffer(capacity: topic.utf8.count + payload.utf8.count + 8)
            MQTTPacketEncoder.publish(topic: topic, payload: payload, packetID: id, retain: retain, into: &buffer)
            channel.writeAndFlush(buffer, promise: nil)
        }
    }

    /// Subscribes at QoS 0 (a plain NATS subscription, no JetStream consumer), or at QoS 1 with
    /// `atLeastOnce` (LoadBenchmark's own persistent session; each QoS 1 PUBLISH is acknowledged
    /// as it arrives); a refused subscription closes the connection, so the device's reconnect
    /// subscribes again.
    func subscribe(filter: String, atLeastOnce: Bool = false) {
        channel.eventLoop.execute { [self] in
            let id = nextPacketID
            nextPacketID = nextPacketID == UInt16.max ? 1 : nextPacketID + 1
            var buffer = channel.allocator.buffer(capacity: filter.utf8.count + 8)
            MQTTPacketEncoder.subscribe(filter: filter, packetID: id, qos: atLeastOnce ? 1 : 0, into: &buffer)
            channel.writeAndFlush(buffer, promise: nil)
        }
    }

    fileprivate func didRefuseSubscription() {
        channel.close(promise: nil)
    }

    fileprivate func didReceive(topic: String, payload: ByteBuffer) {
        onMessage?(topic, payload)
    }

    fileprivate func didClose() {
        let callback = onClose
        onClose = nil
        callback?()
    }

    fileprivate func didAcknowledge(_ id: UInt16) {
        acknowledged.removeValue(forKey: id)?(Int(id), .now)
    }

    /// Closes the connection (without DISCONNECT: the broker's will handling is not measured).
    func close() async {
        channel.eventLoop.execute { self.onClose = nil }
        try? await channel.close()
    }
}

/// Reads CONNACK, PUBACK, SUBACK and QoS 0 PUBLISH; ignores everything else.
private final class MQTTLoadHandler: ChannelInboundHandler, @unchecked Sendable {  // event loop only
    typealias InboundIn = (type: UInt8, body: ByteBuffer)
    typealias OutboundOut = ByteBuffer
    let connack: EventLoopPromise<Void>
    weak var client: MQTTLoadClient?

    init(connack: EventLoopPromise<Void>) {
        self.connack = connack
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var packet = unwrapInboundIn(data)
        switch packet.type >> 4 {
        case 2:  // CONNACK
            let code = packet.body.getInteger(at: packet.body.readerIndex + 1, as: UInt8.self) ?? 255
            if code == 0 { connack.succeed(()) } else { connack.fail(LoadError("the broker refused the connection (code \(code))")) }
        case 4:  // PUBACK
            if let id = packet.body.readInteger(as: UInt16.self) { client?.didAcknowledge(id) }
        case 9:  // SUBACK: 0x80 is a refusal
            _ = packet.body.readInteger(as: UInt16.self)
            if packet.body.readInteger(as: UInt8.self) == 0x80 { client?.didRefuseSubscription() }
        case 3:  // PUBLISH (QoS 0: no packet id; QoS 1 acknowledged at once)
            let qos = (packet.type >> 1) & 0x03
            guard let length = packet.body.readInteger(as: UInt16.self), let topic = packet.body.readString(length: Int(length)) else { break }
            if qos > 0 {
                // A device does not ask for QoS 1 (acknowledged all the same so the broker does
                // not hold it); the benchmark's persistent session does.
                guard let id = packet.body.readInteger(as: UInt16.self) else { break }
                var ack = context.channel.allocator.buffer(capacity: 4)
                ack.writeInteger(UInt8(0x40))
                ack.writeInteger(UInt8(2))
                ack.writeInteger(id)
                context.writeAndFlush(wrapOutboundOut(ack), promise: nil)
            }
            client?.didReceive(topic: topic, payload: packet.body)
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        connack.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        connack.fail(LoadError("the connection closed"))
        client?.didClose()
    }
}

/// Splits the byte stream into MQTT packets: (first byte, body).
private struct MQTTPacketDecoder: ByteToMessageDecoder {
    typealias InboundOut = (type: UInt8, body: ByteBuffer)

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let start = buffer.readerIndex
        guard let type = buffer.getInteger(at: start, as: UInt8.self) else { return .needMoreData }
        var length = 0, multiplier = 1, offset = 1
        while true {
            guard let byte = buffer.getInteger(at: start + offset, as: UInt8.self) else { return .needMoreData }
            length += Int(byte & 0x7f) * multiplier
            multiplier *= 128
            offset += 1
            if byte & 0x80 == 0 { break }
            if offset > 4 { throw LoadError("a malformed remaining length") }
        }
        guard buffer.readableBytes >= offset + length else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: offset)
        let body = buffer.readSlice(length: length)!
        context.fireChannelRead(wrapInboundOut((type, body)))
        return .continue
    }
}

/// Writes the packets a device sends.
enum MQTTPacketEncoder {
    static func connect(clientID: String, keepAlive: UInt16, credentials: (String, String)?, cleanSession: Bool = true, into buffer: inout ByteBuffer) {
        var body = ByteBuffer()
        string("MQTT", into: &body)
        body.writeInteger(UInt8(4))  // 3.1.1
        var flags: UInt8 = cleanSession ? 0x02 : 0
        if credentials != nil { flags |= 0xC0 }
        body.writeInteger(flags)
        body.writeInteger(keepAlive)
        string(clientID, into: &body)
        if let (user, password) = credentials {
            string(user, into: &body)
            string(password, into: &body)
        }
        header(0x10, length: body.readableBytes, into: &buffer)
        buffer.writeBuffer(&body)
    }

    static func publish(topic: String, payload: String, packetID: UInt16, retain: Bool, into buffer: inout ByteBuffer) {
        let length = 2 + topic.utf8.count + 2 + payload.utf8.count
        header(0x32 | (retain ? 1 : 0), length: length, into: &buffer)
        string(topic, into: &buffer)
        buffer.writeInteger(packetID)
        buffer.writeString(payload)
    }

    static func subscribe(filter: String, packetID: UInt16, qos: UInt8 = 0, into buffer: inout ByteBuffer) {
        header(0x82, length: 2 + 2 + filter.utf8.count + 1, into: &buffer)
        buffer.writeInteger(packetID)
        string(filter, into: &buffer)
        buffer.writeInteger(qos)
    }

    private static func string(_ text: String, into buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt16(text.utf8.count))
        buffer.writeString(text)
    }

    private static func header(_ type: UInt8, length: Int, into buffer: inout ByteBuffer) {
        buffer.writeInteger(type)
        var remaining = length
        repeat {
            var byte = UInt8(remaining % 128)
            remaining /= 128
            if remaining > 0 { byte |= 0x80 }
            buffer.writeInteger(byte)
        } while remaining > 0
    }
}

/// A failure of the load program, said plainly.
struct LoadError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
