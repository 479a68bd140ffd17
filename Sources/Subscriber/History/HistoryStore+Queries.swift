import GRDB
import GRDBSQLite
import WhereaboutsCore

extension HistoryStore {
    /// The users with stored locations, sorted.
    package func users() async throws(HistoryError) -> [String] {
        try await read { db in
            try String.fetchAll(db, sql: """
                SELECT DISTINCT user FROM member m WHERE EXISTS (SELECT 1 FROM location l WHERE l.member = m.id) ORDER BY user
                """)
        }
    }

    /// The devices of `user` with stored locations, sorted; empty for an unknown user.
    package func devices(of user: String) async throws(HistoryError) -> [String] {
        try await read { db in
            try String.fetchAll(db, sql: """
                SELECT device FROM member m WHERE user = ? AND EXISTS (SELECT 1 FROM location l WHERE l.member = m.id) ORDER BY device
                """, arguments: [user])
        }
    }

    /// The key of `member` in the history, to read its locations with
    /// ``scanLocations(of:from:to:limit:_:)``; `nil` when nothing of it was ever stored.
    package func key(of member: MemberID) async throws(HistoryError) -> HistoryMemberKey? {
        try await read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM member WHERE user = ? AND device = ?", arguments: [member.user, member.device])
                .map(HistoryMemberKey.init(id:))
        }
    }

    /// Hands `body` the locations of `member` with `from <= tst <= to`, ordered by `tst`, at
    /// most `limit`, as one SQLite statement stepped in one read transaction (a snapshot: writes
    /// committed meanwhile are not seen). `body` steps as far as it wants and returns what it made
    /// of the rows; a caller streaming a long range calls this once per chunk and continues after
    /// the last `tst` it got (`tst` is unique per member).
    package func scanLocations<Result: Sendable>(
        of member: HistoryMemberKey, from: Int, to: Int, limit: Int,
        _ body: @escaping @Sendable (inout HistoryLocationRows) throws(HistoryError) -> Result
    ) async throws(HistoryError) -> Result {
        let path = path
        return try await read { db in
            let statement = try db.cachedStatement(sql: """
                SELECT \(HistoryLocationRows.columns) FROM location WHERE member = ? AND tst BETWEEN ? AND ? ORDER BY tst LIMIT ?
                """)
            try statement.setArguments([member.id, from, to, max(0, limit)])
            defer { sqlite3_reset(statement.sqliteStatement) }
            var rows = HistoryLocationRows(statement: statement.sqliteStatement, connection: db.sqliteConnection, path: path)
            return try body(&rows)
        }
    }

    /// The `tst` of `member`'s location that `skipping` others precede from `from` on (within
    /// `from...to`, ordered by `tst`): where a chunk of `skipping` locations starting at `from`
    /// ends (exclusive); `nil` when fewer are left. SQLite walks the index without decoding the
    /// rows (about 80 ns a row, a twentieth of reading and encoding one), so a streaming reader
    /// can split a range into chunks and read them side by side.
    package func locationBoundary(of member: HistoryMemberKey, from: Int, to: Int, skipping: Int) async throws(HistoryError) -> Int? {
        try await read { db in
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT tst FROM location WHERE member = ? AND tst BETWEEN ? AND ? ORDER BY tst LIMIT 1 OFFSET ?"),
                arguments: [member.id, from, to, max(0, skipping)])
        }
    }

    /// The locations of `member` with `from <= tst <= to`, ordered by `tst`, at most `limit`
    /// (the oldest first); empty for an unknown member.
    package func locations(of member: MemberID, from: Int, to: Int, limit: Int) async throws(HistoryError) -> [HistoryLocation] {
        guard let key = try await key(of: member) else { return [] }
        return try await scanLocations(of: key, from: from, to: to, limit: limit) { rows throws(HistoryError) in
            var locations: [HistoryLocation] = []
            while try rows.next() { locations.append(rows.location(of: member)) }
            return locations
        }
    }

    /// The newest stored location of each member (by `tst`), ordered by user and device;
    /// only `user`'s members when given, only `member` when given.
    package func lastLocations(user: String? = nil, device: String? = nil) async throws(HistoryError) -> [HistoryLocation] {
        try await scanLastLocations(user: user, device: device) { rows throws(HistoryError) in
            var locations: [HistoryLocation] = []
            while try rows.next() { locations.append(rows.location(of: rows.memberID)) }
            return locations
        }
    }

    /// Hands `body` the newest stored location of each member (by `tst`), ordered by user and
    /// device, with the member's user and device (``HistoryLocationRows/withMember(_:)``); only
    /// `user`'s members when given, only `member` when given. Read from the copy of each
    /// member's newest location that triggers keep (`last_location`, HistoryStore.swift's
    /// "v3-read-last-location"): 10,000 rows read in order, not 20,000 index searches.
    ///
    /// `users` limits it to the users in that range (`..<pivot`, `pivot...`), so that two
    /// halves split at ``lastLocationsPivot()`` can be read side by side.
    package func scanLastLocations<Result: Sendable>(
        user: String? = nil, device: String? = nil, users: HistoryUserRange = .all,
        _ body: @escaping @Sendable (inout HistoryLocationRows) throws(HistoryError) -> Result
    ) async throws(HistoryError) -> Result {
        // One statement per filter: with `(?1 IS NULL OR who.user = ?1)` SQLite may plan a scan
        // instead of a search of the member's index.
        let (filter, arguments): (String, StatementArguments) = switch (user, device, users) {
        case (nil, _, .all): ("", [])
        case (nil, _, .before(let pivot)): ("WHERE who.user < ?", [pivot])
        case (nil, _, .from(let pivot)): ("WHERE who.user >= ?", [pivot])
        case (let user?, nil, _): ("WHERE who.user = ?", [user])
        case (let user?, let device?, _): ("WHERE who.user = ? AND who.device = ?", [user, device])
        }
        let path = path
        return try await read { db in
            let statement = try db.cachedStatement(sql: """
                SELECT \(HistoryLocationRows.columns), who.user, who.device FROM member who
                CROSS JOIN last_location l ON l.member = who.id
                \(filter)
                ORDER BY who.user, who.device
                """)
            try statement.setArguments(arguments)
            defer { sqlite3_reset(statement.sqliteStatement) }
            var rows = HistoryLocationRows(statement: statement.sqliteStatement, connection: db.sqliteConnection, path: path, withMember: true)
            return try body(&rows)
        }
    }

    /// The user in the middle of the members with a last location (by user, then device): where
    /// ``scanLastLocations(user:device:users:_:)`` can be split in two; `nil` when there are fewer
    /// than 2,000 members (not worth splitting).
    package func lastLocationsPivot() async throws(HistoryError) -> String? {
        try await read { db in
            try String.fetchOne(db, sql: """
                SELECT who.user FROM member who CROSS JOIN last_location l ON l.member = who.id ORDER BY who.user, who.device
                LIMIT 1 OFFSET (SELECT COUNT(*) FROM last_location) / 2
                """).flatMap { pivot in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM last_location").flatMap { $0 >= 2_000 ? pivot : nil } }
        }
    }

    /// Stored locations and transitions, for tests and status.
    func counts() async throws(HistoryError) -> (locations: Int, transitions: Int) {
        try await read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM location") ?? 0,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM transition") ?? 0)
        }
    }
}

/// A member's row in the history (``HistoryStore/key(of:)``): looked up once, then used for
/// every chunk of a long read instead of joining the member table again.
package struct HistoryMemberKey: Sendable, Hashable {
    /// The row id of the member in the history file.
    let id: Int64
}

/// Which users a read of each member's last location covers
/// (``HistoryStore/scanLastLocations(user:device:users:_:)``).
package enum HistoryUserRange: Sendable, Hashable {
    /// Every user.
    case all
    /// The users ordered before the pivot.
    case before(String)
    /// The pivot and the users ordered after it.
    case from(String)
}
