import Subscriber
/// Where the dashboard reads circle views from: the subscriber's view store conforms to it.
///
/// Every method reflects the state at the moment of the call; ``viewUpdates()`` starts a new,
/// independent subscription for each caller (one per WebSocket client).
public protocol CircleViewSource: Sendable {
    /// The sequence of view changes returned by ``viewUpdates()``.
    associatedtype ViewUpdates: AsyncSequence, Sendable where ViewUpdates.Element == CircleView

    /// The current view of every circle, in the order the circles file lists them.
    func currentViews() async -> [CircleView]

    /// The ids of the circles, in the order the circles file lists them.
    func circleIDs() async -> [String]

    /// The current view of the circle `id`, or `nil` when no circle has that id.
    func currentView(id: String) async -> CircleView?

    /// The trail of one member of a circle, oldest point first, or `nil` when the circle has no
    /// such member.
    func memberTrail(circle: String, user: String, device: String) async -> [TrailPoint]?

    /// A new subscription to the views that change from now on, each delivered whole.
    func viewUpdates() async -> ViewUpdates

    /// The sequence of events returned by ``eventUpdates()``.
    associatedtype EventUpdates: AsyncSequence, Sendable where EventUpdates.Element == CircleEvent

    /// A new subscription to the circles' events (status changes, arrivals and departures,
    /// membership) from now on, in the order they happened.
    func eventUpdates() async -> EventUpdates
}

extension CircleViewSource {
    /// The ids of ``currentViews()``; sources that can list their circles without building their
    /// views should answer directly.
    public func circleIDs() async -> [String] {
        await currentViews().map(\.circle.id)
    }
}
