import Foundation
import GRDB
import Logging
import SQLiteSupport
import Synchronization
import WhereaboutsCore

/// Every accepted location and transition of every member, in one SQLite file (WAL).
///
/// Promises:
/// - Locations come back ordered by `tst`, whatever order they arrived in; a member's location
///   with a `tst` already stored is stored once (the first copy is kept).
/// - A batch is one transaction: after a crash or a kill -9 every committed batch is there, and
///   nothing of a batch that did not commit; a committed batch is on the disk (`synchronous=FULL`
///   in WAL mode: the log is fsynced at every commit), so it survives a power loss too. A receipt
///   is sent only for committed rows (docs/receipts.md), and the publisher then deletes them.
/// - Locations rejected at ingest as outliers are kept aside in their own table, under the same
///   retention and cap, and leave it only by being restored (HistoryStore+Outliers.swift).
/// - Rows leave only through ``removeExpired(retention:membership:now:)`` and ``enforceCap(maxBytes:)``,
///   both of which return what they removed so the caller logs and counts it.
///
/// One GRDB `DatabasePool` owns the file: writes are serialised on its writer queue (GRDB's own
/// dispatch queue, never the cooperative pool), reads run beside them on reader connections.
package final class HistoryStore: Sendable {
    /// The history file.
    package let path: String
    /// Damage found in the files when they were opened (an emptied file, a deleted or damaged
    /// write-ahead log, commits missing against the commit mark), each also logged at warning
    /// level; empty when the files were sound or are not open yet.
    package var damage: [SQLiteDamage] { state.withLock { $0.damage } }
    /// Rows known to be lost to that damage: added by commits the file no longer holds.
    package var lostRows: Int { damage.compactMap(\.lostRows).reduce(0, +) }

    /// ``lostRows`` the first time it is asked after the file opened, 0 after that: for a counter.
    func takeUnreportedLoss() -> Int {
        state.withLock { state in
            defer { state.lossReported = true }
            return state.lossReported ? 0 : state.damage.compactMap(\.lostRows).reduce(0, +)
        }
    }

    private let logger: Logger
    /// The count of committed transactions kept beside the file (`<path>-mark`).
    private let mark: CommitMark
    private let configuration: Configuration
    /// The open pool (none while the file system was too full to open the file), the damage
    /// found when it opened, and whether the last write worked; the mutex makes it safe.
    private let state = Mutex(OpenState())
    /// Member row ids by member, filled inside the writer's serialised closures; the mutex lets
    /// those closures (on GRDB's queue) share it safely.
    private let memberIDs = MemberIDCache()

    /// The application id stamped into the file (`PRAGMA application_id`): "WHHI".
    static let applicationID: Int32 = 0x5748_4849

    /// Opens the history at `path`, creating the file and its folder when missing.
    ///
    /// Before SQLite opens the file, its companions are checked (SQLiteSupport's
    /// ``SQLiteFileCheck``: an emptied file, a deleted or damaged write-ahead log), and after it
    /// opened, its commits are compared with the commit mark (``CommitMark``): whatever is lost is
    /// in ``damage`` and logged at warning level with the rows lost, never opened silently smaller.
    ///
    /// On a file system too full to open the file (SQLite needs room for its log index and
    /// recovery) the store is made anyway, logged at error level: every read and write tries to
    /// open it again, and fails with ``HistoryError/storageFull(path:)`` until there is room.
    ///
    /// - Throws: ``HistoryError`` when the file is not an SQLite database, belongs to another
    ///   program, was written by a newer version, or cannot be created.
    package init(path: String, logger: Logger) throws(HistoryError) {
        self.path = path
        self.logger = logger
        try SQLiteFile.createFolder(holding: path, failure: HistoryError.self)
        mark = CommitMark(database: path, table: "commit_mark")
        var configuration = Configuration()
        configuration.label = "whereabouts.history"
        // Another process may hold the file briefly (a second reader opening it, `sqlite3`):
        // wait for it instead of failing at once.
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // Pages freed by retention and the cap can be given back to the file system (set by
            // the writer connection; the pool's reader connections are read-only).
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL") }
        }
        self.configuration = configuration
        do {
            _ = try openedPool()
        } catch .storageFull {
            logger.error("History: the file system is full, the file cannot be opened yet; locations are not stored until there is room.",
                         metadata: ["whereabouts.history.path": "\(path)"])
            state.withLock { $0.writable = false }
        }
    }

    /// The open pool, opening the file first when it is not open yet. The open runs under the
    /// state's mutex (so two callers never open twice): it is short, and happens once, or once a
    /// second while a full file system keeps it from working.
    private func openedPool() throws(HistoryError) -> DatabasePool {
        try state.withLock { (state: inout OpenState) throws(HistoryError) -> DatabasePool in
            if let pool = state.pool { return pool }
            let (pool, damage) = try Self.open(path: path, configuration: configuration, mark: mark)
            state.pool = pool
            state.damage = damage
            state.lossReported = false
            for found in damage {
                logger.warning("History damaged: rows lost.", metadata: [
                    "whereabouts.history.path": "\(path)", "whereabouts.history.damage": "\(found.description)",
                ])
            }
            logger.info("History opened.", metadata: [
                "whereabouts.history.path": "\(path)", "whereabouts.history.lost": "\(damage.compactMap(\.lostRows).reduce(0, +))",
            ])
            return pool
        }
    }

    /// Checks the files, opens them, claims and migrates the database, and compares its commits
    /// with the commit mark.
    private static func open(path: String, configuration: Configuration, mark: CommitMark) throws(HistoryError)
        -> (DatabasePool, [SQLiteDamage])
    {
        let inspected = SQLiteFileCheck.inspect(path: path)
        do {
            // A DatabasePool opens the file in WAL mode, and sets `synchronous=NORMAL` on its
            // writer as it does (after `prepareDatabase`), under which a power loss may take the
            // last commits. A receipt says a committed row is safe and the publisher deletes it:
            // FULL fsyncs the log at each commit (one batch per 250 ms or more, see
            // HistoryWriter), so what a receipt covers survives a power loss.
            let pool = try DatabasePool(path: path, configuration: configuration)
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            try pool.write { db in
                if try SQLiteFile.claim(db, applicationID: Self.applicationID, path: path, failure: HistoryError.self) {
                    try SQLiteFile.refuseNewer(db, migrator: Self.migrator, path: path, failure: HistoryError.self)
                }
            }
            try Self.migrator.migrate(pool)
            let missing = try pool.read { db in try mark.verify(db) }
            let damage = inspected + (missing.map { [$0] } ?? [])
            if !damage.isEmpty { SQLiteFileCheck.settle(pool) }
            return (pool, damage)
        } catch {
            let failure = HistoryError.translate(error, path: path)
            // On a full file system SQLite often reports an I/O error (its log index cannot grow).
            if case .database = failure, SQLiteFile.isOutOfSpace(holding: path) { throw .storageFull(path: path) }
            throw failure
        }
    }

    /// Tries to open the file when it is not open yet (a full file system at start), and marks
    /// the store writable when that works: with no rows waiting there is no write whose retry
    /// would find out that space came back.
    func openIfClosed() {
        guard state.withLock({ $0.pool == nil }) else { return }
        if (try? openedPool()) != nil { setWritable(true) }
    }

    /// Whether the last write of ingested rows worked (`true` before the first); changes are
    /// also sent to every ``writabilityChanges()`` sequence.
    package var isWritable: Bool { state.withLock { $0.writable } }

    /// Every change of ``isWritable`` from now on (the current value first).
    package func writabilityChanges() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream<Bool>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        let now = state.withLock { state in
            state.watchers[id] = continuation
            return state.writable
        }
        continuation.yield(now)
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.watchers.removeValue(forKey: id) } }
        return stream
    }

    private func setWritable(_ writable: Bool) {
        let watchers = state.withLock { state -> [AsyncStream<Bool>.Continuation] in
            guard state.writable != writable else { return [] }
            state.writable = writable
            return Array(state.watchers.values)
        }
        for watcher in watchers { watcher.yield(writable) }
    }

    /// Stores `rows` in one transaction and returns how many were new (duplicates are skipped).
    /// Rejected outliers go to their own table (HistoryStore+Outliers.swift).
    ///
    /// Rows are bound with the raw sqlite3 API (``HistoryInsert``): binding through GRDB's
    /// argument arrays cost several times SQLite's own insert per row (BENCHMARKS.md).
    func write(_ rows: [HistoryRow]) async throws(HistoryError) -> Int {
        let counts = try await writeCounting(rows)
        return counts.stored + counts.keptAside
    }

    /// ``write(_:)``, returning the new locations and transitions and the new outliers kept
    /// aside separately (for the writer's counters).
    ///
    /// Sets ``isWritable``: `false` when it fails, `true` again when one succeeds.
    func writeCounting(_ rows: [HistoryRow]) async throws(HistoryError) -> (stored: Int, keptAside: Int) {
        guard !rows.isEmpty else { return (0, 0) }
        do {
            let counts = try await insert(rows)
            setWritable(true)
            return counts
        } catch {
            setWritable(false)
            throw error
        }
    }

    private func insert(_ rows: [HistoryRow]) async throws(HistoryError) -> (stored: Int, keptAside: Int) {
        let cache = memberIDs
        return try await perform(rows: { $0.stored + $0.keptAside }) { db in
            var ids = cache.withLock { $0 }
            defer { cache.withLock { $0 = ids } }
            func id(of member: MemberID) throws -> Int64 {
                if let id = ids[member] { return id }
                try db.cachedStatement(sql: "INSERT OR IGNORE INTO member (user, device) VALUES (?, ?)")
                    .execute(arguments: [member.user, member.device])
                guard let id = try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT id FROM member WHERE user = ? AND device = ?"),
                    arguments: [member.user, member.device])
                else {
                    throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "the member row of \(member) is missing right after its insert")
                }
                ids[member] = id
                return id
            }
            // The three inserts, prepared once per connection (GRDB's statement cache) and bound by index.
            var location = HistoryInsert(try db.cachedStatement(sql: """
                INSERT OR IGNORE INTO location (member, tst, lat, lon, acc, alt, vac, vel, cog, batt, bs, tid, t, m, created_at, received_at, device_fields)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """), in: db)
            var transition = HistoryInsert(try db.cachedStatement(sql: """
                INSERT OR IGNORE INTO transition (member, tst, event, region, received_at) VALUES (?, ?, ?, ?, ?)
                """), in: db)
            var rejected = HistoryInsert(try db.cachedStatement(sql: """
                INSERT OR IGNORE INTO rejected (member, tst, lat, lon, acc, alt, vac, vel, cog, batt, bs, tid, t, m, created_at, received_at, reason, device_fields)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """), in: db)
            var stored = 0
            var keptAside = 0
            for row in rows {
                switch row {
                case let .location(member, fix, receivedAt):
                    location.bind(try id(of: member))
                    location.bind(fix)
                    location.bind(receivedAt)
                    location.bind(HistoryDeviceFields.json(fix))
                    stored += try location.step()
                case let .transition(member, event, region, tst, receivedAt):
                    transition.bind(try id(of: member))
                    transition.bind(tst)
                    transition.bind(event)
                    transition.bind(region ?? "")
                    transition.bind(receivedAt)
                    stored += try transition.step()
                case let .rejected(member, fix, reason, receivedAt):
                    rejected.bind(try id(of: member))
                    rejected.bind(fix)
                    rejected.bind(receivedAt)
                    rejected.bind(reason)
                    rejected.bind(HistoryDeviceFields.json(fix))
                    keptAside += try rejected.step()
                }
            }
            return (stored, keptAside)
        }
    }

    /// Deletes what the retention rule no longer keeps: each member's locations and transitions
    /// older than its period (from `membership`, circle ids by member; members in no circle get
    /// the global period). Returns how many rows were removed.
    func removeExpired(retention: HistoryRetention, membership: [MemberID: [String]], now: Date) async throws(HistoryError) -> Int {
        let nowSeconds = Int(now.timeIntervalSince1970)
        return try await perform { db in
            var removed = 0
            for row in try Row.fetchAll(db, sql: "SELECT id, user, device FROM member") {
                let member = MemberID(user: row["user"], device: row["device"])
                let days = retention.days(forCircles: membership[member] ?? [])
                guard days > 0 else { continue }
                let cutoff = nowSeconds - days * 86_400
                for table in Self.dataTables {
                    try db.cachedStatement(sql: "DELETE FROM \(table) WHERE member = ? AND tst < ?")
                        .execute(arguments: [row["id"] as Int64, cutoff])
                    removed += db.changesCount
                }
            }
            return removed
        }
    }

    /// Deletes the oldest locations and transitions, a slice of the stored time span at a time,
    /// until the data takes at most `maxBytes`; then gives the freed pages back to the file
    /// system. Returns how many rows were removed.
    func enforceCap(maxBytes: Int) async throws(HistoryError) -> Int {
        var removed = 0
        for _ in 0..<100 {
            guard try await usedBytes() > maxBytes else { break }
            let step = try await perform { db -> Int in
                let span = try Row.fetchOne(db, sql: """
                    SELECT MIN((SELECT MIN(tst) FROM location l WHERE l.member = m.id)) AS oldest,
                           MAX((SELECT MAX(tst) FROM location l WHERE l.member = m.id)) AS newest
                    FROM member m
                    """)
                guard let oldest: Int = span?["oldest"], let newest: Int = span?["newest"] else {
                    // No locations left: transitions and rejected outliers go.
                    try db.execute(sql: "DELETE FROM transition")
                    var removed = db.changesCount
                    try db.execute(sql: "DELETE FROM rejected")
                    removed += db.changesCount
                    return removed
                }
                let cutoff = oldest + max(60, (newest - oldest) / 20) // a twentieth of the span, at least a minute
                var removed = 0
                for table in Self.dataTables {
                    try db.execute(sql: "DELETE FROM \(table) WHERE member IN (SELECT id FROM member) AND tst < ?", arguments: [cutoff])
                    removed += db.changesCount
                }
                return removed
            }
            removed += step
            if step == 0 { break }
        }
        if removed > 0 { await giveSpaceBack() }
        return removed
    }

    /// Bytes of the file that hold data (pages in use, the free list not counted).
    func usedBytes() async throws(HistoryError) -> Int {
        try await perform { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let free = try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
            let size = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
            return (pages - free) * size
        }
    }

    /// Returns freed pages to the file system and cuts the write-ahead log back.
    private func giveSpaceBack() async {
        do {
            let pool = try openedPool()
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                pool.asyncWriteWithoutTransaction { db in
                    continuation.resume(with: Result {
                        try db.execute(sql: "PRAGMA incremental_vacuum")
                        try db.checkpoint(.truncate)
                    })
                }
            }
        } catch {
            logger.debug("History vacuum failed.", metadata: ["whereabouts.error": "\(error)"])
        }
    }

    /// The tables of member data that retention and the cap trim by `tst`.
    private static let dataTables = ["location", "transition", "rejected"]

    /// Runs `work` on a reader connection (beside the writer, WAL snapshot isolation).
    /// The writer connection's `PRAGMA synchronous` (2 is FULL), for the tests.
    func writerSynchronousSetting() throws -> Int? {
        try openedPool().writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
    }

    func read<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws(HistoryError) -> T {
        do {
            return try await openedPool().read(work)
        } catch {
            throw HistoryError.translate(error, path: path)
        }
    }

    /// Runs a write transaction on GRDB's writer queue, counting it in the commit mark when it
    /// changed something (`rows`: how many rows its result says it added). Not cancellable (GRDB's
    /// `async write` would be): the writer commits what is pending when its task is cancelled at
    /// shutdown.
    func perform<T: Sendable>(
        rows: @escaping @Sendable (T) -> Int = { _ in 0 }, _ work: @escaping @Sendable (Database) throws -> T
    ) async throws(HistoryError) -> T {
        do {
            let pool = try openedPool()
            let mark = mark
            return try await withCheckedThrowingContinuation { continuation in
                pool.asyncWrite({ db in
                    let before = db.totalChangesCount
                    let result = try work(db)
                    if db.totalChangesCount != before { try mark.count(db, rows: rows(result)) }
                    return result
                }) { _, result in continuation.resume(with: result) }
            }
        } catch {
            memberIDs.withLock { $0 = [:] }  // a rolled back transaction may have taken new member ids with it
            throw HistoryError.translate(error, path: path)
        }
    }

    /// The schema. `location` and `transition` are keyed by (member, tst), without row ids: a
    /// member's rows are stored in `tst` order, so a range read is one index walk and a duplicate
    /// is refused by the key.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-member-location-transition") { db in
            try db.execute(sql: """
                CREATE TABLE member (id INTEGER PRIMARY KEY, user TEXT NOT NULL, device TEXT NOT NULL, UNIQUE (user, device));
                CREATE TABLE location (
                    member INTEGER NOT NULL REFERENCES member (id),
                    \(Self.locationColumnsV1),
                    PRIMARY KEY (member, tst)
                ) WITHOUT ROWID;
                CREATE TABLE transition (
                    member INTEGER NOT NULL REFERENCES member (id),
                    tst INTEGER NOT NULL,
                    event TEXT NOT NULL,
                    region TEXT NOT NULL,
                    received_at REAL NOT NULL,
                    PRIMARY KEY (member, tst, event, region)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v2-audit") { db in
            // Corrections (HistoryStore+Corrections.swift): who removed which locations, when.
            try db.execute(sql: """
                CREATE TABLE audit (
                    id INTEGER PRIMARY KEY,
                    at REAL NOT NULL,
                    actor TEXT NOT NULL,
                    client TEXT NOT NULL,
                    action TEXT NOT NULL,
                    user TEXT NOT NULL,
                    device TEXT NOT NULL,
                    from_tst INTEGER NOT NULL,
                    to_tst INTEGER NOT NULL,
                    removed INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration("v3-read-last-location") { db in
            // The newest location of each member, a copy kept by triggers (so the writer's code
            // is untouched): `/api/0/last` for 10,000 members reads 10,000 rows of this table
            // instead of two index searches per member in `location` (BENCHMARKS.md, "Recorder
            // API"). An insert (one not ignored as a duplicate) replaces the copy when it is newer;
            // a delete of the copied location (a correction, retention, the cap) copies the
            // newest left, or removes the member's row when none is left.
            let columns = "member, tst, lat, lon, acc, alt, vac, vel, cog, batt, bs, tid, t, m, created_at, received_at"
            try db.execute(sql: """
                CREATE TABLE last_location (
                    member INTEGER PRIMARY KEY REFERENCES member (id),
                    \(Self.locationColumnsV1)
                );
                INSERT INTO last_location (\(columns))
                    SELECT \(columns) FROM member who CROSS JOIN location l ON l.member = who.id
                    AND l.tst = (SELECT MAX(tst) FROM location WHERE member = who.id);
                \(Self.lastLocationTriggers(columns: columns))
                """)
        }
        migrator.registerMigration("v3-rejected") { db in
            // Outliers rejected at ingest (HistoryStore+Outliers.swift): the columns of
            // `location`, plus why; never read by the location queries; restorable.
            try db.execute(sql: """
                CREATE TABLE rejected (
                    member INTEGER NOT NULL REFERENCES member (id),
                    \(Self.locationColumnsV1),
                    reason TEXT NOT NULL,
                    PRIMARY KEY (member, tst)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v4-commit-mark") { db in
            // The count of committed transactions that `<path>-mark` is compared with (CommitMark).
            try CommitMark.prepare(db, table: "commit_mark")
        }
        migrator.registerMigration("v5-device-fields") { db in
            // The fields the apps send that have no column (`conn`, `p`, `SSID`, `BSSID`,
            // `inrids`, `motionactivities`), as one JSON object (HistoryDeviceFields); `NULL` in
            // rows written before. The copy in `last_location` carries it too: its triggers are
            // made again with the column.
            let columns = "member, tst, lat, lon, acc, alt, vac, vel, cog, batt, bs, tid, t, m, created_at, received_at, device_fields"
            try db.execute(sql: """
                ALTER TABLE location ADD COLUMN device_fields TEXT;
                ALTER TABLE rejected ADD COLUMN device_fields TEXT;
                ALTER TABLE last_location ADD COLUMN device_fields TEXT;
                UPDATE last_location SET device_fields = NULL;
                DROP TRIGGER last_location_after_insert;
                DROP TRIGGER last_location_after_delete;
                DROP TRIGGER last_location_after_update;
                \(Self.lastLocationTriggers(columns: columns))
                """)
        }
        return migrator
    }

    /// The columns of a stored location after its `member`, as migration v1 made them for
    /// `location` and v3 for `last_location` and `rejected` (one definition, so the three cannot
    /// differ). Part of those migrations: never edit it; a new column is a migration of its own,
    /// as v5's `device_fields`. Indented as it stands inside their `CREATE TABLE`, so the stored
    /// schema text is what it was when the three wrote it out.
    private static let locationColumnsV1 = """
        tst INTEGER NOT NULL,
            lat REAL NOT NULL,
            lon REAL NOT NULL,
            acc INTEGER, alt INTEGER, vac INTEGER, vel INTEGER, cog INTEGER, batt INTEGER, bs INTEGER,
            tid TEXT, t TEXT, m INTEGER, created_at INTEGER,
            received_at REAL NOT NULL
        """

    /// The three triggers that keep `last_location` a copy of each member's newest row of
    /// `location`, over `columns` (a comma-separated list that starts with `member`): an insert
    /// replaces the copy when it is newer; a delete or an update of the copied row copies the
    /// newest left, or removes the member's row when none is left. Migrations v3 and v5 make
    /// them, over the columns of their time.
    private static func lastLocationTriggers(columns: String) -> String {
        let names = columns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let newValues = names.map { "NEW.\($0)" }.joined(separator: ", ")
        let updates = names.filter { $0 != "member" }.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        return """
            CREATE TRIGGER last_location_after_insert AFTER INSERT ON location BEGIN
                INSERT INTO last_location (\(columns)) VALUES (\(newValues))
                ON CONFLICT (member) DO UPDATE SET \(updates)
                WHERE excluded.tst > last_location.tst;
            END;
            CREATE TRIGGER last_location_after_delete AFTER DELETE ON location
            WHEN OLD.tst = (SELECT tst FROM last_location WHERE member = OLD.member) BEGIN
                DELETE FROM last_location WHERE member = OLD.member;
                INSERT INTO last_location (\(columns)) SELECT \(columns) FROM location WHERE member = OLD.member ORDER BY tst DESC LIMIT 1;
            END;
            CREATE TRIGGER last_location_after_update AFTER UPDATE ON location BEGIN
                DELETE FROM last_location WHERE member IN (OLD.member, NEW.member);
                INSERT INTO last_location (\(columns)) SELECT \(columns) FROM location WHERE member = OLD.member ORDER BY tst DESC LIMIT 1;
                INSERT OR IGNORE INTO last_location (\(columns)) SELECT \(columns) FROM location WHERE member = NEW.member ORDER BY tst DESC LIMIT 1;
            END;
            """
    }
}

extension HistoryStore {
    /// What ``HistoryStore/state`` guards.
    private struct OpenState {
        var pool: DatabasePool?
        var damage: [SQLiteDamage] = []
        var lossReported = false
        var writable = true
        var watchers: [UUID: AsyncStream<Bool>.Continuation] = [:]
    }

    /// Member row ids by member, shared by the writer's closures on GRDB's queue; the mutex
    /// makes it safe.
    private final class MemberIDCache: Sendable {
        private let ids = Mutex<[MemberID: Int64]>([:])
        func withLock<T: Sendable>(_ body: (inout [MemberID: Int64]) -> T) -> T { ids.withLock { body(&$0) } }
    }
}

extension HistoryStore: Hashable {
    /// Two stores are equal when they are the same object (configurations that hold one compare so).
    package static func == (lhs: HistoryStore, rhs: HistoryStore) -> Bool { lhs === rhs }

    /// Hashes the object's identity.
    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
