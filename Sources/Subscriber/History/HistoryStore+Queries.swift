import GRDB
import WhereaboutsCore

extension HistoryStore {
    /// The users with stored locations, sorted.
    public func users() async throws(HistoryError) -> [String] {
        try await read { db in
            try String.fetchAll(db, sql: """
                SELECT DISTINCT user FROM member m WHERE EXISTS (SELECT 1 FROM location l WHERE l.member = m.id) ORDER BY user
                """)
        }
    }

    /// The devices of `user` with stored locations, sorted; empty for an unknown user.
    public func devices(of user: String) async throws(HistoryError) -> [String] {
        try await read { db in
            try String.fetchAll(db, sql: """
                SELECT device FROM member m WHERE user = ? AND EXISTS (SELECT 1 FROM location l WHERE l.member = m.id) ORDER BY device
                """, arguments: [user])
        }
    }

    /// The locations of `member` with `from <= tst <= to`, ordered by `tst`, at most `limit`
    /// (the oldest first); empty for an unknown member.
    public func locations(of member: MemberID, from: Int, to: Int, limit: Int) async throws(HistoryError) -> [HistoryLocation] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.locationColumns) FROM location l JOIN member m ON m.id = l.member
                WHERE m.user = ? AND m.device = ? AND l.tst BETWEEN ? AND ? ORDER BY l.tst LIMIT ?
                """, arguments: [member.user, member.device, from, to, max(0, limit)]).map(Self.location(from:))
        }
    }

    /// The newest stored location of each member (by `tst`), ordered by user and device;
    /// only `user`'s members when given, only `member` when given.
    public func lastLocations(user: String? = nil, device: String? = nil) async throws(HistoryError) -> [HistoryLocation] {
        // One statement per filter: with `(?1 IS NULL OR m.user = ?1)` SQLite planned a scan of
        // every location (3 s for 10,000 devices over 10 million points, BENCHMARKS.md).
        let (filter, arguments): (String, StatementArguments) = switch (user, device) {
        case (nil, _): ("", [])
        case (let user?, nil): ("WHERE m.user = ?", [user])
        case (let user?, let device?): ("WHERE m.user = ? AND m.device = ?", [user, device])
        }
        return try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.locationColumns) FROM member m
                JOIN location l ON l.member = m.id AND l.tst = (SELECT MAX(tst) FROM location WHERE member = m.id)
                \(filter)
                ORDER BY m.user, m.device
                """, arguments: arguments).map(Self.location(from:))
        }
    }

    /// Stored locations and transitions, for tests and status.
    func counts() async throws(HistoryError) -> (locations: Int, transitions: Int) {
        try await read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM location") ?? 0,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM transition") ?? 0)
        }
    }

    private static let locationColumns =
        "m.user, m.device, l.tst, l.lat, l.lon, l.acc, l.alt, l.vac, l.vel, l.cog, l.batt, l.bs, l.tid, l.t, l.m, l.created_at, l.received_at"

    private static func location(from row: Row) -> HistoryLocation {
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
        return HistoryLocation(member: MemberID(user: row["user"], device: row["device"]), fix: fix, receivedAt: row["received_at"])
    }
}
