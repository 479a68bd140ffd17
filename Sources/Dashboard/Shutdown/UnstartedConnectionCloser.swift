import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Lets the server's graceful shutdown reach every connection, including those no HTTP handler
/// owns yet, and bounds how long any connection may keep the shutdown waiting.
///
/// Hummingbird stops gracefully by closing the listening socket, telling every connection to
/// quiesce (`ChannelShouldQuiesceEvent`) and waiting until all of them have closed. On the
/// dashboard's HTTP/1 channel with WebSocket upgrades, the handler that acts on that event
/// (`HTTPConnectionStateHandler`) joins the connection only once its first request head has been
/// read and the upgrade decided. A connection accepted but without a whole request head (a
/// browser's spare or speculative connection, a retry that got no further) ignored the event, and
/// the server waited for it for as long as the client kept it open: the page's reconnection test
/// once saw a restarted dashboard not stop within 30 s of its graceful shutdown.
///
/// First in the pipeline, this handler sees the event before anything else and:
/// - closes at once a connection that has not sent a whole request head (nothing reached the
///   application; the client opens a new connection, to a new server);
/// - passes the event on where a handler acts on it: a plain HTTP connection (closed once its
///   response is written) or an upgraded WebSocket (closed by its own graceful-shutdown handler,
///   ``WebSocketAccess``);
/// - while an upgrade is being decided (a head read, the router's answer not yet given), looks
///   again every ``handoverCheck`` until one of the above holds;
/// - closes whatever is still open ``grace`` after the event (a request that does not finish, a
///   client that does not answer the WebSocket close), logged at warning level.
///
/// Each closing is counted in the ``ShutdownTally``, which ``ShutdownReport`` logs.
final class UnstartedConnectionCloser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// How often a connection whose upgrade is being decided is looked at again.
    static let handoverCheck = TimeAmount.milliseconds(50)
    /// How long after the shutdown began any connection is closed regardless (longer than a
    /// WebSocket's close timeout, 15 s).
    static let grace = TimeAmount.seconds(20)

    private let tally: ShutdownTally
    private let logger: Logger
    private var quiescing = false
    private var lastResort: Scheduled<Void>?
    private var recheck: Scheduled<Void>?

    init(tally: ShutdownTally, logger: Logger) {
        self.tally = tally
        self.logger = logger
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        guard !quiescing else { return }
        quiescing = true
        let loop = context.eventLoop.assumeIsolated()
        lastResort = loop.scheduleTask(in: Self.grace) { [self] in
            guard context.channel.isActive else { return }
            tally.closedOverdue()
            logger.warning("Closed a dashboard connection still open after the shutdown's grace.", metadata: [
                "whereabouts.http.peer": "\(context.channel.remoteAddress.map { "\($0)" } ?? "unknown")",
                "whereabouts.http.grace": "\(Self.grace.nanoseconds / 1_000_000_000) s",
            ])
            context.close(promise: nil)
        }
        handOver(context: context, event: event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        lastResort?.cancel()
        recheck?.cancel()
        context.fireChannelInactive()
    }

    /// Closes the connection, passes the event on, or looks again shortly: see the type's summary.
    private func handOver(context: ChannelHandlerContext, event: Any) {
        recheck = nil
        guard context.channel.isActive else { return }
        let pipeline = context.pipeline.syncOperations
        if (try? pipeline.handler(type: RefusedUpgradeFilter.self)) != nil {
            // The filter leaves the pipeline at the first whole request head: none came yet.
            tally.closedWithoutRequest()
            logger.debug("Closed a dashboard connection that had sent no request, on shutdown.", metadata: [
                "whereabouts.http.peer": "\(context.channel.remoteAddress.map { "\($0)" } ?? "unknown")",
            ])
            context.close(promise: nil)
        } else if (try? pipeline.handler(type: HTTPConnectionStateHandler.self)) != nil
            || (try? pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)) == nil
        {
            // Plain HTTP (its state handler closes it when idle), or upgraded to a WebSocket (the
            // HTTP decoder is gone; the WebSocket closes on the graceful shutdown itself).
            context.fireUserInboundEventTriggered(event)
        } else {
            recheck = context.eventLoop.assumeIsolated().scheduleTask(in: Self.handoverCheck) { [self] in
                handOver(context: context, event: event)
            }
        }
    }
}
