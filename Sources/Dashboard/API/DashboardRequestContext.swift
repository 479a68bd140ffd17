import Hummingbird
import HummingbirdWebSocket
import Synchronization

/// The request context of every dashboard route: WebSocket upgrades are allowed.
///
/// It is hummingbird-websocket's `BasicWebSocketRequestContext` with one difference, which keeps
/// the server's memory flat. When a route decides to upgrade, hummingbird-websocket (2.x) stores the
/// upgrade handler together with a copy of the request context in a box that the context itself
/// holds, and nothing ever empties that box: a reference cycle, so every upgraded connection's
/// context (its logger metadata, request id and the box, about 1 KB in six allocations) stayed
/// allocated for the life of the process. Measured with heaptrack on the release binary: 2,400
/// WebSocket connections opened and closed, 2,400 contexts never freed; resident memory crept up by
/// about 1.5 MB per 1,800 connections, and the scattered survivors kept the allocator from giving
/// freed pages back. Here the box is reached through a slot that the upgraded connection's handler
/// empties as it starts (``releaseUpgradeHandler()``), which breaks the cycle.
struct DashboardRequestContext: RequestContext, WebSocketRequestContext {
    /// Hummingbird's per-request storage (logger, allocator, parameters).
    var coreContext: CoreRequestContextStorage
    private let slot: UpgradeSlot
    /// Who is asking, as the login check decided (Login/LoginMiddleware.swift); until it has run,
    /// nobody, who sees nothing.
    var viewer = Viewer.nobody
    /// The session token (cookie or bearer) the request was let in with; `nil` for HTTP basic or
    /// the open mode. An open WebSocket closes when this session ends.
    var session: String?
    /// The client's IP address (the peer of the TCP connection), for the login rate limit.
    let clientAddress: String

    /// Creates the context of one request.
    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        slot = UpgradeSlot(port: source.channel.localAddress?.port ?? 0)
        clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// Where the router leaves the upgrade handler for the WebSocket channel to pick up.
    var webSocket: WebSocketHandlerReference<DashboardRequestContext> { slot.reference }

    /// Lets go of the upgrade handler and the context copy stored with it. Call it once the
    /// connection is upgraded (the handler is running): it is not needed after that.
    func releaseUpgradeHandler() { slot.release() }

    /// How many request contexts of the server listening on `port` are still allocated: once its
    /// requests and WebSocket connections have ended, none should be (the test of the cycle fix).
    static func allocatedContexts(port: Int) -> Int {
        UpgradeSlot.allocated.withLock { $0[port] ?? 0 }
    }
}

extension DashboardRequestContext {
    /// Holds a context's handler reference until the upgraded connection no longer needs it.
    private final class UpgradeSlot: Sendable {
        /// Slots alive per server port (one per request context and its copies).
        static let allocated = Mutex<[Int: Int]>([:])

        private let held = Mutex<WebSocketHandlerReference<DashboardRequestContext>?>(WebSocketHandlerReference())
        private let port: Int

        init(port: Int) {
            self.port = port
            Self.allocated.withLock { $0[port, default: 0] += 1 }
        }

        deinit {
            Self.allocated.withLock { counts in
                counts[port, default: 1] -= 1
                if counts[port] == 0 { counts[port] = nil }
            }
        }

        /// The stored reference; after ``release()`` an empty one, so a late reader finds no handler.
        var reference: WebSocketHandlerReference<DashboardRequestContext> {
            held.withLock { $0 } ?? WebSocketHandlerReference()
        }

        func release() { held.withLock { $0 = nil } }
    }
}
