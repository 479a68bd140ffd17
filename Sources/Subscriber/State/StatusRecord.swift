import Foundation

/// One member's status as the status file keeps it across restarts (`--state-file`).
struct StatusRecord: Sendable, Hashable, Codable {
    /// The member's user name.
    var user: String
    /// The member's device name.
    var device: String
    /// `online`, `offline` or `unknown` as last set by a message (`stale` is derived, never stored).
    var status: MemberStatus
    /// Event time (epoch s) of the message that set the status: later messages are ordered against it.
    var eventTime: Double
    /// Epoch seconds since which the status holds.
    var since: Int?
    /// Epoch seconds of the newest news from the member.
    var lastNews: Int?

    /// Creates a record.
    init(user: String, device: String, status: MemberStatus, eventTime: Double, since: Int?, lastNews: Int?) {
        self.user = user
        self.device = device
        self.status = status
        self.eventTime = eventTime
        self.since = since
        self.lastNews = lastNews
    }
}

extension CircleViewStore {
    /// Every tracked member's status if any changed since the last call, else `nil`.
    func takeStatusSnapshot() -> [StatusRecord]? {
        guard statusDirty else { return nil }
        statusDirty = false
        return statusSnapshot()
    }

    /// Marks the statuses as not yet saved (a write failed), so the next snapshot is taken again.
    func markStatusUnsaved() {
        statusDirty = true
    }

    /// Every tracked member's status that a message set, sorted by member.
    func statusSnapshot() -> [StatusRecord] {
        states.compactMap { entry -> StatusRecord? in
            let (member, state) = entry
            guard state.baseStatus != .unknown else { return nil }
            return StatusRecord(
                user: member.user, device: member.device, status: state.baseStatus,
                eventTime: state.statusEventTime, since: state.statusSince, lastNews: state.lastNews)
        }.sorted { ($0.user, $0.device) < ($1.user, $1.device) }
    }

    /// Restores statuses saved by an earlier run, for members still tracked, before ingest
    /// starts. No events go out for them: they were announced when they happened.
    /// Returns how many members were restored.
    @discardableResult
    func restoreStatus(_ records: [StatusRecord], at now: Date = Date()) -> Int {
        var restored = 0
        for record in records where record.status != .stale {
            let member = MemberID(user: record.user, device: record.device)
            guard memberCircles[member] != nil, record.eventTime.isFinite else { continue }
            var state = states[member] ?? MemberState()
            state.restore(record, at: now.timeIntervalSince1970, staleTimeout: settings.staleTimeout)
            states[member] = state
            if let deadline = state.staleDeadline(staleTimeout: settings.staleTimeout) {
                nextStaleCheck = min(nextStaleCheck, deadline)
            }
            restored += 1
        }
        for circle in circleList { dirty.insert(circle.id) }
        return restored
    }
}

extension MemberState {
    /// Takes over a saved status; what is announced is what the status is now.
    mutating func restore(_ record: StatusRecord, at now: Double, staleTimeout: Double) {
        baseStatus = record.status
        statusEventTime = record.eventTime
        statusSince = record.since
        lastNews = record.lastNews
        announced = status(at: now, staleTimeout: staleTimeout)
    }
}
