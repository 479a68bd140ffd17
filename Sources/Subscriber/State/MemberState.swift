import Foundation
import WhereaboutsCore

/// Everything the subscriber knows about one tracked device, kept compact (see BENCHMARKS.md for
/// the measured bytes per member): the live fix, a bounded trail, and the status bookkeeping.
///
/// Status rules (documented in `docs/subscriber.md`):
/// - A fix is *live* when it is newer than the live fix (by ``orderKey``) and, unless the broker
///   replayed it as retained state, its `tst` is at most the live window old on arrival. Anything
///   else is *backlog*: trail only, never news of being online. `created_at` plays no part (the
///   OwnTracks apps always send it, seconds after `tst`).
/// - Messages that say the device is up (a live fix, presence `online`) or down (a last
///   will, presence `offline`) are ordered by an *event time*: the receive time for messages that
///   arrive live, the message's own `tst` (capped at the receive time) for retained ones (which
///   replay old state in any order). A message changes the base status only if its event time is
///   not older than the last one's.
/// - A fix dated ahead of its arrival (clock skew, within the future tolerance) counts as of its
///   arrival time when later fixes are ordered against it, so it never holds the live position.
/// - The *promise* is the `due` of the newest live message that says the device is up (a live
///   fix, presence `online`), by the same event-time order; `nil` when that message promised
///   nothing (the OwnTracks apps).
/// - Derived from a base status online: with a promise, `overdue` once the promise plus the grace
///   has passed, else `online` while the newest fix (without one: coming online) is within the stale
///   timeout, else `stationary` (alive, heartbeats keep the promise, not moving); without a
///   promise, `stale` once the newest news (`tst` of any accepted message, capped at the receive
///   time) is older than the stale timeout. Any member heard from but silent for the gone
///   timeout is `gone`, whatever its base status.
struct MemberState: Sendable {
    /// The newest fix: never replaced by an older one.
    var fix: LocationMessage?
    /// What a new fix's `tst` must exceed to replace ``fix``: its `tst`, capped at its arrival.
    var orderKey: Int = .min
    /// Recent fixes including the live one.
    var trail = Trail()
    /// Online, offline or unknown, as last announced; `stale` is derived from `lastNews`.
    var baseStatus: MemberStatus = .unknown
    /// Event time (epoch s) of the message that set `baseStatus`.
    var statusEventTime: Double = -.infinity
    /// Epoch seconds since which `baseStatus` holds.
    var statusSince: Int?
    /// Epoch seconds of the newest news from the member.
    var lastNews: Int?
    /// The status last announced through events, to detect changes.
    var announced: MemberStatus = .unknown
    /// Epoch seconds by which the device promised its next message, from the newest live message
    /// that says it is up; `nil` when that message promised nothing.
    var promise: Int?
    /// Event time of the message that set ``promise``.
    private var promiseEventTime: Double = -.infinity

    /// The live fix's time and position, for the speed rule (``OutlierRules``).
    var livePoint: OutlierRules.LivePoint? {
        fix.map { OutlierRules.LivePoint(tst: $0.tst, lat: $0.lat, lon: $0.lon) }
    }

    /// What applying a message did.
    enum Outcome: Equatable {
        /// The view changed (new live fix, trail point, or status).
        case changed
        /// The message was accepted but changed nothing shown (card, ignored types).
        case unchanged
        /// Same member, same `tst` as a fix already held.
        case duplicate
    }

    /// The status shown at `now` under `settings` (the rules above).
    func status(at now: Double, settings: ViewSettings) -> MemberStatus {
        guard baseStatus != .unknown else { return .unknown }
        if let lastNews, now - Double(lastNews) > settings.goneAfter { return .gone }
        guard baseStatus == .online else { return baseStatus }
        if let promise {
            if now > Double(promise) + settings.overdueGrace { return .overdue }
            return now - freshness <= settings.staleTimeout ? .online : .stationary
        }
        if let lastNews, now - Double(lastNews) > settings.staleTimeout { return .stale }
        return .online
    }

    /// Since when (epoch s) the member shows signs of moving: its newest fix, or coming online
    /// while it has none (a heartbeat is no sign of moving).
    private var freshness: Double {
        fix == nil ? Double(statusSince ?? Int.min) : Double(orderKey)
    }

    /// Epoch seconds since which `status(at:settings:)` holds.
    func statusSince(at now: Double, settings: ViewSettings) -> Int? {
        switch status(at: now, settings: settings) {
        case .gone: return lastNews.map { $0 + Int(settings.goneAfter.rounded(.up)) }
        case .stale: return lastNews.map { $0 + Int(settings.staleTimeout.rounded(.up)) }
        case .overdue: return promise.map { $0 + Int(settings.overdueGrace.rounded(.up)) }
        case .stationary: return Int((freshness + settings.staleTimeout).rounded(.up))
        case .online, .offline, .unknown: return statusSince
        }
    }

    /// The status shown at `now` if it differs from the one last announced, recording it as
    /// announced; `nil` when nothing changed. Coming back online from a derived status (stale,
    /// stationary, overdue, gone) restarts `statusSince`.
    mutating func takeStatusChange(at now: Double, settings: ViewSettings) -> MemberStatus? {
        let current = status(at: now, settings: settings)
        guard current != announced else { return nil }
        if current == .online, [.stale, .stationary, .overdue, .gone].contains(announced) { statusSince = Int(now) }
        announced = current
        return current
    }

    /// The next time after `now` (epoch s) at which the status may change without news: the
    /// stale, stationary, overdue or gone threshold ahead.
    func nextStatusChange(after now: Double, settings: ViewSettings) -> Double? {
        guard baseStatus != .unknown else { return nil }
        // The earliest threshold after `now`, without an array per message (this runs on every fix).
        var next: Double?
        func consider(_ candidate: Double) {
            if candidate > now, next.map({ candidate < $0 }) ?? true { next = candidate }
        }
        if let lastNews { consider(Double(lastNews) + settings.goneAfter) }
        if baseStatus == .online {
            if let promise {
                consider(Double(promise) + settings.overdueGrace)
                consider(freshness + settings.staleTimeout)
            } else if let lastNews {
                consider(Double(lastNews) + settings.staleTimeout)
            }
        }
        return next
    }

    mutating func apply(
        _ message: InboundMessage, receivedAt now: Date, retained: Bool, settings: ViewSettings
    ) -> Outcome {
        let nowSeconds = now.timeIntervalSince1970
        switch message {
        case .location(let location, _):
            return applyLocation(location, now: nowSeconds, retained: retained, settings: settings)
        case .lastWill(let tst):
            // A will is sent by the broker when the connection is lost; its tst is the connect time.
            let eventTime = retained ? min(Double(tst), nowSeconds) : nowSeconds
            return setBase(.offline, eventTime: eventTime, since: Int(eventTime)) ? .changed : .unchanged
        case let .presence(online, _, tst, due):
            noteNews(tst, now: nowSeconds)
            let eventTime = retained ? min(Double(tst), nowSeconds) : nowSeconds
            let promised = setPromise(online ? due : nil, eventTime: eventTime)
            let changed = setBase(online ? .online : .offline, eventTime: eventTime, since: min(tst, Int(nowSeconds)))
            return changed || promised ? .changed : .unchanged
        case .transition(_, _, let tst):
            let before = status(at: nowSeconds, settings: settings)
            noteNews(tst, now: nowSeconds)
            return before == status(at: nowSeconds, settings: settings) ? .unchanged : .changed
        case .card, .ignored:
            return .unchanged
        }
    }

    /// Whether `location`, received at `now`, would be live: newer than the live fix and fresh
    /// on arrival (or replayed retained state). Everything else is backlog.
    func isLive(_ location: LocationMessage, now: Double, retained: Bool, liveWindow: Double) -> Bool {
        guard location.tst > orderKey else { return false }
        return retained || now - Double(location.tst) <= liveWindow
    }

    private mutating func applyLocation(
        _ location: LocationMessage, now: Double, retained: Bool, settings: ViewSettings
    ) -> Outcome {
        if let fix, fix.tst == location.tst { return .duplicate }
        if trail.contains(tst: location.tst) { return .duplicate }
        let live = isLive(location, now: now, retained: retained, liveWindow: settings.liveWindow)
        if location.tst > orderKey, let old = fix, old.tst > location.tst {
            // The live fix was dated ahead of its arrival: a skewed clock's point leaves the trail.
            trail.remove(tst: old.tst)
        }
        var changed = trail.insert(
            tst: location.tst, lat: location.lat, lon: location.lon,
            maxCount: settings.trailLength, maxSpan: settings.trailDuration)
        if location.tst > orderKey {
            fix = location
            orderKey = min(location.tst, Int(now))
            changed = true
            noteNews(location.tst, now: now)
            if live {
                let eventTime = retained ? min(Double(location.tst), now) : now
                _ = setPromise(location.due, eventTime: eventTime)
                _ = setBase(.online, eventTime: eventTime, since: min(location.tst, Int(now)))
            }
        }
        return changed ? .changed : .unchanged
    }

    private mutating func noteNews(_ tst: Int, now: Double) {
        let news = min(tst, Int(now))
        lastNews = max(lastNews ?? news, news)
    }

    /// Takes over a promise saved in the status file.
    mutating func restorePromise(_ due: Int, eventTime: Double) {
        promise = due
        promiseEventTime = eventTime
    }

    /// Takes the promise of a message with `eventTime` if no newer message set one; returns
    /// whether the promise changed.
    private mutating func setPromise(_ due: Int?, eventTime: Double) -> Bool {
        guard eventTime >= promiseEventTime else { return false }
        promiseEventTime = eventTime
        defer { promise = due }
        return promise != due
    }

    /// Sets the base status if `eventTime` is not older than the current one's. Returns whether
    /// the base status changed.
    private mutating func setBase(_ status: MemberStatus, eventTime: Double, since: Int) -> Bool {
        guard eventTime >= statusEventTime else { return false }
        statusEventTime = eventTime
        guard status != baseStatus else { return false }
        baseStatus = status
        statusSince = since
        return true
    }
}
