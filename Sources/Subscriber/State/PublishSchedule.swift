import Foundation

/// What the view publisher has to send and when: circles whose view changed, when each view
/// was last collected, events and removed circles waiting, and when a member may turn stale.
struct PublishSchedule: Sendable {
    private var dirty: Set<String>
    private var lastCollected: [String: Double]
    private var pendingEvents: [CircleEvent] = []
    private var removedCircles: [String] = []
    /// The earliest time (epoch s) at which a member's status may change without news.
    private(set) var nextStatusCheck: Double = .infinity

    /// A schedule where every circle of `circleIDs` is due one view interval after `now`.
    init(circleIDs: [String], now: Double) {
        dirty = Set(circleIDs)
        lastCollected = Dictionary(circleIDs.map { ($0, now) }, uniquingKeysWith: { first, _ in first })
    }

    /// Marks circles as changed; returns whether any was not marked before.
    mutating func markDirty(_ circleIDs: some Sequence<String>) -> Bool {
        var newlyDirty = false
        for id in circleIDs where dirty.insert(id).inserted { newlyDirty = true }
        return newlyDirty
    }

    /// Marks a circle for publishing at once (after a failed publish).
    mutating func invalidate(_ circleID: String) {
        dirty.insert(circleID)
        lastCollected[circleID] = nil
    }

    /// Queues the clearing of a circle that is no longer owned.
    mutating func remove(_ circleID: String) {
        removedCircles.append(circleID)
        lastCollected[circleID] = nil
        dirty.remove(circleID)
    }

    /// Queues an event.
    mutating func queue(_ event: CircleEvent) {
        pendingEvents.append(event)
    }

    /// Brings the next status check forward to `deadline` if it is earlier.
    mutating func checkStatus(by deadline: Double) {
        nextStatusCheck = min(nextStatusCheck, deadline)
    }

    /// Sets the next status check after a full check.
    mutating func setNextStatusCheck(_ deadline: Double) {
        nextStatusCheck = deadline
    }

    /// Takes what is due at `now`: the ids of changed circles whose last collection is at least
    /// `viewInterval` ago (sorted; circles that `owns` no longer has are dropped), the queued
    /// events and removed circles, and when to look again (`nil`: only a change can make
    /// anything due).
    mutating func takeDue(
        at now: Double, viewInterval: Double, owns: (String) -> Bool
    ) -> (circles: [String], events: [CircleEvent], removedCircles: [String], next: Date?) {
        var due: [String] = []
        var nextDue = Double.infinity
        for id in dirty {
            guard owns(id) else {
                dirty.remove(id)
                continue
            }
            let dueAt = (lastCollected[id] ?? -.infinity) + viewInterval
            if dueAt <= now {
                due.append(id)
                lastCollected[id] = now
                dirty.remove(id)
            } else {
                nextDue = min(nextDue, dueAt)
            }
        }
        let events = pendingEvents
        pendingEvents.removeAll(keepingCapacity: true)
        let removed = removedCircles
        removedCircles.removeAll()
        let next = min(nextDue, nextStatusCheck)
        return (due.sorted(), events, removed, next.isFinite ? Date(timeIntervalSince1970: next) : nil)
    }

    /// Queue depths for the metrics: events, views and removed circles waiting.
    var queueDepths: [String: Int] {
        ["events": pendingEvents.count, "views": dirty.count, "removed_circles": removedCircles.count]
    }
}
