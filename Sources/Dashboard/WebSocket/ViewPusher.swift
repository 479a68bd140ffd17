import Circles
import HummingbirdWebSocket
import Logging

/// Pushes circle views to one WebSocket client: the current views at once, then every change.
///
/// Each text message is one view, encoded exactly as `GET /api/circles/<id>` serves it. A view
/// never follows a newer view of the same circle (`generatedAt` only grows per circle), so a
/// change that raced the initial snapshot is not sent twice or out of order.
struct ViewPusher<Source: CircleViewSource>: Sendable {
    let source: Source

    /// Runs until the client closes the socket, the server shuts down, or the source ends.
    ///
    /// - Parameter circle: The circle to push, or `nil` for every circle.
    func push(
        circle: String?,
        inbound: WebSocketInboundStream,
        outbound: WebSocketOutboundWriter,
        logger: Logger
    ) async throws {
        // Subscribe before taking the snapshot, so no change falls between the two.
        let updates = await source.viewUpdates()
        let snapshot: [CircleView]
        if let circle {
            snapshot = await source.currentView(id: circle).map { [$0] } ?? []
        } else {
            snapshot = await source.currentViews()
        }
        logger.debug("Dashboard WebSocket client connected", metadata: ["whereabouts.circle": "\(circle ?? "*")"])

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // Reading keeps control frames (ping, close) flowing; the client sends no data.
                for try await _ in inbound {}
            }
            group.addTask {
                var newest: [String: Double] = [:]
                func send(_ view: CircleView) async throws {
                    if let last = newest[view.circle.id], view.generatedAt <= last { return }
                    newest[view.circle.id] = view.generatedAt
                    try await outbound.writeTextMessage(JSONBody.string(view))
                }
                for view in snapshot {
                    try await send(view)
                }
                for try await view in updates where circle == nil || view.circle.id == circle {
                    try await send(view)
                }
            }
            // Whichever ends first (client gone, or no more updates) ends the other.
            try await group.next()
            group.cancelAll()
        }
        logger.debug("Dashboard WebSocket client disconnected", metadata: ["whereabouts.circle": "\(circle ?? "*")"])
    }
}
