import GRDB

extension HistoryStore {
    /// Removes the locations of `member` with `from <= tst <= to` and records it in the audit
    /// log, in one transaction: either both happen or neither. Returns the audit entry (with the
    /// number removed, which may be 0).
    package func deleteLocations(
        of member: MemberID, from: Int, to: Int, actor: String, client: String, at now: Double
    ) async throws(HistoryError) -> HistoryAuditEntry {
        try await perform { db in
            let id = try Int64.fetchOne(db, sql: "SELECT id FROM member WHERE user = ? AND device = ?", arguments: [member.user, member.device])
            var removed = 0
            if let id {
                try db.execute(sql: "DELETE FROM location WHERE member = ? AND tst BETWEEN ? AND ?", arguments: [id, from, to])
                removed = db.changesCount
            }
            let entry = HistoryAuditEntry(
                at: now, actor: actor, client: client, action: "delete", user: member.user, device: member.device,
                from: from, to: to, removed: removed)
            try Self.record(entry, in: db)
            return entry
        }
    }

    /// The audit log, newest first, at most `limit` entries.
    package func auditLog(limit: Int = 1_000) async throws(HistoryError) -> [HistoryAuditEntry] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT at, actor, client, action, user, device, from_tst, to_tst, removed FROM audit ORDER BY id DESC LIMIT ?
                """, arguments: [max(0, limit)]).map { row in
                HistoryAuditEntry(
                    at: row["at"], actor: row["actor"], client: row["client"], action: row["action"], user: row["user"],
                    device: row["device"], from: row["from_tst"], to: row["to_tst"], removed: row["removed"])
            }
        }
    }

    /// Writes `entry` to the `audit` table, inside the caller's transaction: a change and its
    /// audit entry are committed together or not at all (deletes and restores).
    static func record(_ entry: HistoryAuditEntry, in db: Database) throws {
        try db.execute(
            sql: "INSERT INTO audit (at, actor, client, action, user, device, from_tst, to_tst, removed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            arguments: [entry.at, entry.actor, entry.client, entry.action, entry.user, entry.device, entry.from, entry.to, entry.removed])
    }
}
