import Subscriber
import Foundation

/// The subscriber's view store is the dashboard's source: the dashboard shows exactly the views
/// the subscriber publishes over MQTT.
extension CircleViewStore: CircleViewSource {
    /// Every owned circle's view, all computed at the same instant.
    public func currentViews() -> [CircleView] {
        let now = Date()
        return circles().compactMap { view(id: $0.id, at: now) }
    }

    /// The ids of the owned circles, without building their views.
    public func circleIDs() -> [String] {
        circles().map(\.id)
    }

    /// The circle's view now, or `nil` when this instance does not own the circle.
    public func currentView(id: String) -> CircleView? {
        view(id: id)
    }

    /// The member's trail, or `nil` when the circle or the membership does not exist.
    public func memberTrail(circle: String, user: String, device: String) -> [TrailPoint]? {
        trail(circle: circle, user: user, device: device)
    }

    /// A new subscription to the views as the subscriber publishes them.
    public func viewUpdates() -> CircleViewUpdates {
        updates()
    }

    // `eventUpdates()` is the store's own: the events as the subscriber publishes them.
}
