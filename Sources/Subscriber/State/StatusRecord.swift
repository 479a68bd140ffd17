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
    /// The device's promise (`due`, epoch s) when the status was saved, if it made one.
    var due: Int?

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

extension MemberState {
    /// Takes over a saved status; what is announced is what the status is now.
    mutating func restore(_ record: StatusRecord, at now: Double, settings: ViewSettings) {
        baseStatus = record.status
        statusEventTime = record.eventTime
        statusSince = record.since
        lastNews = record.lastNews
        if let due = record.due { restorePromise(due, eventTime: record.eventTime) }
        announced = status(at: now, settings: settings)
    }

    /// The record of `member`'s status, or `nil` while no message set one.
    func record(of member: MemberID) -> StatusRecord? {
        guard baseStatus != .unknown else { return nil }
        var record = StatusRecord(
            user: member.user, device: member.device, status: baseStatus,
            eventTime: statusEventTime, since: statusSince, lastNews: lastNews)
        record.due = promise
        return record
    }
}
