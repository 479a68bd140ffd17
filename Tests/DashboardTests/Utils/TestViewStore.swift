import Dashboard
import Foundation

/// An in-memory view source for the API and page tests: views are set directly and every
/// change is pushed to each subscriber, as the subscriber's store does after ingest.
actor TestViewStore: CircleViewSource {
    private var views: [CircleView]
    private var subscribers: [UUID: AsyncStream<CircleView>.Continuation] = [:]

    init(_ views: [CircleView]) {
        self.views = views
    }

    func currentViews() -> [CircleView] { views }

    func currentView(id: String) -> CircleView? {
        views.first { $0.circle.id == id }
    }

    func memberTrail(circle: String, user: String, device: String) -> [MemberView.TrailPoint]? {
        currentView(id: circle)?.members.first { $0.user == user && $0.device == device }?.trail
    }

    func viewUpdates() -> AsyncStream<CircleView> {
        let (stream, continuation) = AsyncStream.makeStream(of: CircleView.self)
        let id = UUID()
        subscribers[id] = continuation
        continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
        return stream
    }

    /// How many WebSocket clients are subscribed.
    var subscriberCount: Int { subscribers.count }

    /// Replaces the circle's view and pushes it to every subscriber.
    func publish(_ view: CircleView) {
        if let index = views.firstIndex(where: { $0.circle.id == view.circle.id }) {
            views[index] = view
        } else {
            views.append(view)
        }
        for continuation in subscribers.values { continuation.yield(view) }
    }

    private func unsubscribe(_ id: UUID) {
        subscribers[id] = nil
    }
}
