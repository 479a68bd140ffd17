import Subscriber
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket

/// Pushes circle views to one WebSocket client: the latest views at once, then every change.
///
/// Each text message is one view, encoded exactly as `GET /api/circles/<id>` serves it. Views
/// come from the shared ``ViewBroadcaster``: per circle they never go backwards
/// (`generatedAt` only grows), and a client that reads slowly skips intermediate views, never
/// the newest.
struct ViewPusher: Sendable {
    let broadcaster: ViewBroadcaster
    /// The largest frame sent; longer views go out as continuation frames.
    let maxFrameSize: Int

    /// Runs until the client closes the socket, the server shuts down, or the broadcaster ends.
    ///
    /// - Parameter circles: The circles to push, or `nil` for every circle.
    func push(
        circles: Set<String>?,
        inbound: WebSocketInboundStream,
        outbound: WebSocketOutboundWriter,
        logger: Logger
    ) async throws {
        guard let client = await broadcaster.register(circles: circles) else { return }
        let circle = circles.map { $0.count == 1 ? $0.joined() : "\($0.count) circles" }
        defer { broadcaster.unregister(client) }
        logger.debug("Dashboard WebSocket client connected", metadata: ["whereabouts.circle": "\(circle ?? "*")"])

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // Reading keeps control frames (ping, close) flowing; the client sends no data.
                for try await _ in inbound {}
            }
            group.addTask {
                while let frames = await broadcaster.next(for: client) {
                    for json in frames { try await send(json, to: outbound) }
                }
            }
            // Whichever ends first (client gone, or no more views) ends the other.
            try await group.next()
            group.cancelAll()
        }
        logger.debug("Dashboard WebSocket client disconnected", metadata: ["whereabouts.circle": "\(circle ?? "*")"])
    }

    /// Writes `json` as one text message, split into continuation frames past ``maxFrameSize``.
    private func send(_ json: ByteBuffer, to outbound: WebSocketOutboundWriter) async throws {
        var rest = json
        var opcode = WebSocketOpcode.text
        while rest.readableBytes > maxFrameSize, let slice = rest.readSlice(length: maxFrameSize) {
            try await outbound.write(.custom(WebSocketFrame(fin: false, opcode: opcode, data: slice)))
            opcode = .continuation
        }
        try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: opcode, data: rest)))
    }
}
