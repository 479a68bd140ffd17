import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import Subscriber
import Synchronization

extension DashboardRouter {
    /// Adds the Recorder's WebSocket `/ws/last` over `history` (``RecorderLastPusher``).
    static func addRecorderWebSocket<Source: CircleViewSource>(
        to router: Router<DashboardRequestContext>, history: HistoryStore, source: Source
    ) {
        router.ws("/ws/last") { _, _ in
            .upgrade()
        } onUpgrade: { inbound, outbound, context in
            context.requestContext.releaseUpgradeHandler()
            let pusher = RecorderLastPusher(history: history, source: source, viewer: context.requestContext.viewer)
            try await pusher.run(inbound: inbound, outbound: outbound)
        }
    }
}
