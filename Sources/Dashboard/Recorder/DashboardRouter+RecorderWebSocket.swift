import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import Subscriber
import Synchronization

extension DashboardRouter {
    /// Adds the Recorder's WebSocket `/ws/last` over `history` (``RecorderLastPusher``); it closes
    /// when the login that opened it ends (``WebSocketAccess``).
    static func addRecorderWebSocket(
        to router: Router<DashboardRequestContext>, history: HistoryStore, source: CircleViewStore, authenticator: Authenticator?,
        shutdown: ShutdownTally
    ) {
        router.ws("/ws/last") { _, _ in
            .upgrade()
        } onUpgrade: { inbound, outbound, context in
            context.requestContext.releaseUpgradeHandler()
            let pusher = RecorderLastPusher(history: history, source: source, viewer: context.requestContext.viewer)
            try await WebSocketAccess.run(context: context.requestContext, authenticator: authenticator, outbound: outbound, shutdown: shutdown) {
                try await pusher.run(inbound: inbound, outbound: outbound)
            }
        }
    }
}
