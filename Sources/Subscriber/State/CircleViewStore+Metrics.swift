import Foundation

extension CircleViewStore {
    /// The subscriber's metrics in the Prometheus text format: every ingest counter, and gauges
    /// taken now (members by status, WebSocket clients, queue depths). Served on `GET /metrics`.
    public func renderMetrics(at now: Date = Date()) -> [UInt8] {
        let nowSeconds = now.timeIntervalSince1970
        var members: [MemberStatus: Int] = [:]
        for member in memberCircles.keys {
            let status = states[member]?.status(at: nowSeconds, staleTimeout: settings.staleTimeout) ?? .unknown
            members[status, default: 0] += 1
        }
        return metrics.render(
            members: members,
            webSocketClients: subscribers.count,
            queues: ["events": pendingEvents.count, "views": dirty.count, "removed_circles": removedCircles.count])
    }
}
