import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// Turns a WebSocket upgrade that ``RequestOriginPolicy`` refuses into a plain HTTP request, so
/// that the router answers it with 403 and a JSON reason.
///
/// hummingbird-websocket answers every refused upgrade with a bare `400 Bad Request`, whatever
/// the reason. This handler sits between the HTTP decoder and the upgrade handler: for a request
/// asking to upgrade whose `Host` or `Origin` is refused, it removes the `Upgrade` header, so no
/// upgrade is attempted; the request reaches the HTTP router, whose ``RequestOriginMiddleware``
/// answers 403 and logs it. The same for an upgrade that carries no login when the dashboard
/// requires one (no `Authorization` header and no live session cookie): the router answers 401.
final class RefusedUpgradeFilter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let policy: RequestOriginPolicy
    private let login: Authenticator?

    init(policy: RequestOriginPolicy, login: Authenticator?) {
        self.policy = policy
        self.login = login
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        if head.headers.contains(name: "upgrade") {
            let hosts = head.headers["host"]
            let noLogin = login.map { login in
                head.headers["authorization"].isEmpty && !LoginMiddleware.hasLiveSession(cookieHeaders: head.headers["cookie"], authenticator: login)
            } ?? false
            if hosts.count != 1 || policy.refusal(host: hosts.first, origins: head.headers["origin"]) != nil || noLogin {
                head.headers.remove(name: "upgrade")
            }
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
        // Only a connection's first request may upgrade (NIO's upgrade handler leaves after it),
        // and after an upgrade this position would see WebSocket bytes: leave now.
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with WebSocket upgrades decided by `webSocketRouter`, where upgrades that `policy`
    /// refuses are answered by the HTTP router (403) instead of a bare 400, and where a graceful
    /// shutdown closes what it closes into `shutdown`.
    static func originCheckedWebSocketUpgrade(
        webSocketRouter: Router<DashboardRequestContext>,
        configuration: HTTP1WebSocketUpgradeChannel.Configuration,
        policy: RequestOriginPolicy,
        login: Authenticator?,
        shutdown: ShutdownTally
    ) -> HTTPServerBuilder {
        let webSocketResponder = webSocketRouter.buildResponder()
        return .init { responder in
            OriginCheckedUpgradeChannel(
                base: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder, configuration: configuration),
                policy: policy, login: login, shutdown: shutdown)
        }
    }
}
