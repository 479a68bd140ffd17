import Foundation
import Logging
import OwnTracksCrypto
import WhereaboutsCore

/// The one owner of the subscriber's state: the circles this instance owns, every tracked
/// member's fix, trail and status, the ingest counters, and which views are due.
///
/// Read side (the dashboard): ``circles()``, ``view(id:at:)``, ``trail(circle:user:device:)``,
/// ``updates()``. Write side (ingest and the circles-file watcher): ``apply(_:from:retained:at:)``,
/// ``reject(_:topic:)``, ``replaceCircles(_:at:)``. The view publisher calls ``collectDue(at:)``.
public actor CircleViewStore {
    /// The freshness and history settings in force.
    public let settings: ViewSettings
    /// The shard this instance serves.
    public let shard: Shard
    /// At most this often, in seconds, a circle's view is collected for publishing.
    public let viewInterval: Double

    let logger: Logger
    var circleList: [Circle] = []
    var circlesByID: [String: Circle] = [:]
    var memberCircles: [MemberID: [String]] = [:]
    var states: [MemberID: MemberState] = [:]
    var stats = IngestStatistics()
    /// Decryption keys by member, from the circles file's `secretFile`s.
    var secrets: [MemberID: OwnTracksKey] = [:]
    /// Members whose unreadable encrypted messages were already logged.
    var decryptionWarned: Set<MemberID> = []
    let metrics = SubscriberMetrics()
    var cards: [MemberID: MemberCard] = [:]
    var regions: [MemberID: ReportedRegions] = [:]
    /// Member and key pairs already logged once (ignored types, dropped fields).
    var loggedOnce: Set<String> = []
    /// Whether a member's status changed since the status file was last written.
    var statusDirty = false

    var dirty: Set<String> = []
    var lastCollected: [String: Double] = [:]
    var pendingEvents: [CircleEvent] = []
    var removedCircles: [String] = []
    var nextStaleCheck: Double = .infinity
    var changeWaiter: (id: UInt64, continuation: CheckedContinuation<Void, Never>)?
    var changeSignalled = false
    var nextWaiterID: UInt64 = 0
    var subscribers: [UInt64: AsyncStream<CircleView>.Continuation] = [:]
    var nextSubscriberID: UInt64 = 0

    /// Creates a store for the circles of `file` that `shard` owns. Loading is not a membership
    /// change: no `joined` events are sent for the initial members.
    ///
    /// The first views become due one `viewInterval` after `now`, so that the retained messages
    /// the broker replays on subscribe are in them and a restart never publishes a view of
    /// `unknown` members over a good retained one.
    public init(
        circles file: CirclesFile, shard: Shard = .all, settings: ViewSettings = ViewSettings(),
        viewInterval: Double = 1, logger: Logger, now: Date = Date()
    ) {
        self.settings = settings
        self.shard = shard
        self.viewInterval = viewInterval
        self.logger = logger
        let owned = file.circles.filter { shard.owns(circleID: $0.id) }
        secrets = file.secrets
        circleList = owned
        for circle in owned {
            circlesByID[circle.id] = circle
            for member in circle.members { memberCircles[member.id, default: []].append(circle.id) }
        }
        dirty = Set(owned.map(\.id))
        for circle in owned { lastCollected[circle.id] = now.timeIntervalSince1970 }
    }

    // MARK: Read side

    /// The circles this instance owns, in circles-file order.
    public func circles() -> [CircleSummary] {
        circleList.map(\.summary)
    }

    /// The circle with `id`, if this instance owns it.
    public func circle(id: String) -> Circle? {
        circlesByID[id]
    }

    /// Every member device this instance tracks, sorted.
    public func trackedMembers() -> [MemberID] {
        memberCircles.keys.sorted()
    }

    /// The current view of circle `id` at `now`, or `nil` if this instance does not own it.
    public func view(id: String, at now: Date = Date()) -> CircleView? {
        guard let circle = circlesByID[id] else { return nil }
        return buildView(circle, at: now.timeIntervalSince1970)
    }

    /// The trail of `user`/`device` (oldest first) if it is a member of circle `circle`; `nil`
    /// when the circle or the membership does not exist, so a circle's page never reveals a
    /// device outside it.
    public func trail(circle: String, user: String, device: String) -> [TrailPoint]? {
        guard let found = circlesByID[circle], found.members.contains(where: { $0.user == user && $0.device == device })
        else { return nil }
        return states[MemberID(user: user, device: device)]?.trail.trailPoints ?? []
    }

    /// The ingest and publishing counters.
    public func statistics() -> IngestStatistics {
        stats
    }

    /// Views as they are published, from now on. Each call returns an independent sequence.
    public func updates() -> CircleViewUpdates {
        // Unbounded: one collection yields every due view at once, and a bound would drop the
        // oldest ones, which can be some circle's only, newest view. The dashboard reads with
        // one consumer that only encodes (ViewBroadcaster), so nothing accumulates.
        let (stream, continuation) = AsyncStream.makeStream(of: CircleView.self, bufferingPolicy: .unbounded)
        let id = nextSubscriberID
        nextSubscriberID += 1
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscriber(id) }
        }
        return CircleViewUpdates(stream: stream)
    }

    private func removeSubscriber(_ id: UInt64) {
        subscribers[id] = nil
    }

    // MARK: Building views

    func buildView(_ circle: Circle, at now: Double) -> CircleView {
        CircleView(
            circle: circle.summary,
            generatedAt: now,
            members: circle.members.map { memberView($0, state: states[$0.id], at: now) }
        )
    }

    func memberView(_ member: Member, state: MemberState?, at now: Double) -> MemberView {
        var view = MemberView(user: member.user, device: member.device, name: member.name, color: member.color, status: .unknown)
        guard let state else { return view }
        view.status = state.status(at: now, staleTimeout: settings.staleTimeout)
        view.statusSince = state.statusSince(at: now, staleTimeout: settings.staleTimeout)
        view.trail = state.trail.trailPoints
        view.inregions = regions[member.id]?.names
        if let card = cards[member.id] {
            view.cardName = card.name
            view.face = card.face?.tag
        }
        guard let fix = state.fix else { return view }
        view.tid = fix.tid.isEmpty ? nil : fix.tid
        view.fix = FixView(fix)
        view.age = max(0, now - Double(fix.tst))
        let velocity = fix.extrapolationVelocity
        view.speed = velocity.map(\.speed) ?? fix.vel.map { Double($0) / 3.6 }
        if let cog = fix.cog {
            view.course = Double(cog)
        } else if let velocity, velocity.speed > 0 {
            let degrees = atan2(velocity.east, velocity.north) * 180 / .pi
            view.course = degrees < 0 ? degrees + 360 : degrees
        }
        let shown = fix.displayedPosition(at: Date(timeIntervalSince1970: now))
        let moved = velocity.map { $0.speed > 0 } ?? false
        view.display = DisplayPosition(lat: shown.latitude, lon: shown.longitude, extrapolated: moved && now > Double(fix.tst))
        return view
    }
}
