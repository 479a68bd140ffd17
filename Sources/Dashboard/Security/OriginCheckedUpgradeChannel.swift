import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// The dashboard's server channel: hummingbird-websocket's HTTP/1 channel with WebSocket upgrades,
/// plus a ``RefusedUpgradeFilter`` in front of its upgrade handler and a
/// ``MalformedRequestResponder`` that answers requests the HTTP decoder refuses, and an
/// ``UnstartedConnectionCloser`` first of all, so that a graceful shutdown reaches (and bounds)
/// every connection.
struct OriginCheckedUpgradeChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value

    let base: HTTP1WebSocketUpgradeChannel
    let policy: RequestOriginPolicy
    let login: Authenticator?
    let shutdown: ShutdownTally

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            let filter = RefusedUpgradeFilter(policy: policy, login: login)
            try channel.pipeline.syncOperations.addHandler(filter, position: .after(decoder))
            // Requests the decoder refuses get 414, 431 or 400 instead of silence.
            try MalformedRequestResponder.add(to: channel.pipeline.syncOperations, after: filter)
            try channel.pipeline.syncOperations.addHandler(UnstartedConnectionCloser(tally: shutdown, logger: logger), position: .first)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
