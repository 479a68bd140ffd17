import GRDB
import WhereaboutsCore

extension HistoryStore {
    /// The rejected outliers of `member` with `from <= tst <= to`, ordered by `tst`, at most
    /// `limit` (the oldest first); empty for an unknown member.
    package func rejectedLocations(of member: MemberID, from: Int, to: Int, limit: Int) async throws(HistoryError) -> [HistoryRejectedLocation] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT r.tst, r.lat, r.lon, r.acc, r.alt, r.vac, r.vel, r.cog, r.batt, r.bs, r.tid, r.t, r.m, r.created_at,
                       r.received_at, r.reason, r.device_fields
                FROM rejected r JOIN member m ON m.id = r.member
                WHERE m.user = ? AND m.device = ? AND r.tst BETWEEN ? AND ? ORDER BY r.tst LIMIT ?
                """, arguments: [member.user, member.device, from, to, max(0, limit)]).map { row in
                var fix = LocationMessage(tid: row["tid"] ?? "", tst: row["tst"], lat: row["lat"], lon: row["lon"], acc: row["acc"] ?? 0)
                fix.alt = row["alt"]
                fix.vac = row["vac"]
                fix.vel = row["vel"]
                fix.cog = row["cog"]
                fix.batt = row["batt"]
                fix.bs = row["bs"]
                fix.t = row["t"]
                fix.m = row["m"]
                fix.createdAt = row["created_at"]
                if let fields: String = row["device_fields"] { HistoryDeviceFields.apply(fields, to: &fix) }
                return HistoryRejectedLocation(
                    location: HistoryLocation(member: member, fix: fix, receivedAt: row["received_at"]), reason: row["reason"])
            }
        }
    }

    /// Whether the history knows `member` at all (a stored location, transition or outlier).
    package func knows(_ member: MemberID) async throws(HistoryError) -> Bool {
        try await read { db in
            try Int.fetchOne(db, sql: "SELECT 1 FROM member WHERE user = ? AND device = ?", arguments: [member.user, member.device]) != nil
        }
    }

    /// Moves the rejected outliers of `member` with `from <= tst <= to` into the history, and
    /// records it in the audit log, in one transaction: either all of it happens or none.
    ///
    /// Points whose `tst` lies after `notAfter` (the caller passes now plus the future tolerance)
    /// stay rejected and are counted: restored, a far-future point would be the member's last
    /// position ahead of every real fix. A restored point only enters the history: the live
    /// views never move back (an older point is history only; a newer one becomes the history's
    /// last position, as it would have become the live one had it been accepted).
    package func restoreRejected(
        of member: MemberID, from: Int, to: Int, notAfter: Int, actor: String, client: String, at now: Double
    ) async throws(HistoryError) -> HistoryRestoreResult {
        try await perform { db in
            let id = try Int64.fetchOne(db, sql: "SELECT id FROM member WHERE user = ? AND device = ?", arguments: [member.user, member.device])
            var (moved, restored, stillInFuture) = (0, 0, 0)
            if let id {
                let last = min(to, notAfter)
                if from <= last {
                    try db.execute(sql: """
                        INSERT OR IGNORE INTO location (member, tst, lat, lon, acc, alt, vac, vel, cog, batt, bs, tid, t, m, created_at, received_at, device_fields)
                        SELECT member, tst, lat, lon, acc, alt, vac, vel, cog, batt, bs, tid, t, m, created_at, received_at, device_fields
                        FROM rejected WHERE member = ? AND tst BETWEEN ? AND ?
                        """, arguments: [id, from, last])
                    restored = db.changesCount
                    try db.execute(sql: "DELETE FROM rejected WHERE member = ? AND tst BETWEEN ? AND ?", arguments: [id, from, last])
                    moved = db.changesCount
                }
                stillInFuture = try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM rejected WHERE member = ? AND tst BETWEEN ? AND ?",
                    arguments: [id, max(from, notAfter &+ 1), to]) ?? 0
            }
            let entry = HistoryAuditEntry(
                at: now, actor: actor, client: client, action: "restore", user: member.user, device: member.device,
                from: from, to: to, removed: moved)
            try Self.record(entry, in: db)
            return HistoryRestoreResult(audit: entry, restored: restored, duplicates: moved - restored, stillInFuture: stillInFuture)
        }
    }
}

/// One location rejected at ingest as an outlier and kept aside in the history: never shown,
/// restorable (``HistoryStore/restoreRejected(of:from:to:notAfter:actor:client:at:)``).
package struct HistoryRejectedLocation: Sendable, Hashable {
    /// The location as the device sent it, whose it is and when it arrived.
    package var location: HistoryLocation
    /// Why it was rejected: `future_timestamp`, `poor_accuracy` or `implied_speed`.
    package var reason: String

    /// Creates a rejected location.
    package init(location: HistoryLocation, reason: String) {
        self.location = location
        self.reason = reason
    }
}
