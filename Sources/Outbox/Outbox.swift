#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Logging
import SQLiteSupport
import Synchronization

/// The publisher's durable FIFO of reports, in one SQLite file.
///
/// Promises:
/// - ``append(topic:payload:tst:createdAt:)`` returns only after the entry is committed with
///   `synchronous=FULL` in WAL mode, so it survives a crash, a kill -9 and a power loss.
/// - Entries come back from ``oldest(limit:)`` in the order they were appended, across restarts.
/// - Every entry gets a sequence number (``OutboxEntry/seq``) in the file's ``epoch``, for receipts
///   (docs/receipts.md). An acknowledged entry may be kept, marked, until a receipt covers it
///   (``markAcknowledged(ids:retained:at:)``, ``removeConfirmed(through:)``); ``oldest(limit:)``
///   returns only the entries not marked.
/// - An entry leaves only through ``remove(ids:)`` (the broker acknowledged it), a receipt, or the cap:
///   when an append would exceed ``maxEntries``, the oldest entries are deleted in the same
///   transaction, logged at warning level and counted in the result.
///
/// The outbox is the only owner of its file: one connection on SQLite's C API, owned by a `Mutex`
/// and used on the outbox's own serial dispatch queue, never on the Swift cooperative pool
/// (``OutboxStore``). It is hand-written rather than through GRDB, which the subscriber's
/// history keeps: GRDB imports all of Foundation, and with it whereabouts-pub linked Foundation,
/// FoundationInternationalization and ICU (SQLiteSupport's `OwnedSQLiteConnection` says by how much).
package final class Outbox: Sendable {
    /// The outbox file.
    package let path: String
    /// The most entries kept; the oldest go first when an append would exceed it.
    package let maxEntries: Int
    /// Damage found in the files when opening them (an emptied file, a deleted or damaged
    /// write-ahead log, commits missing against the commit mark), each also logged at warning
    /// level; empty when the files were sound.
    package let damage: [OutboxDamage]
    /// Reports known to be lost to that damage (``SQLiteDamage/missingCommits(path:transactions:rows:)``):
    /// committed to the outbox and no longer in it, delivered or not.
    var lostReports: Int { damage.compactMap(\.lostRows).reduce(0, +) }
    /// The file's receipt epoch: 16 hexadecimal digits drawn when the file was created (or first
    /// opened by a version with receipts). A new file starts a new epoch, so an old receipt
    /// cannot cover its reports.
    package let epoch: String

    private let store: OutboxStore
    private let logger: Logger
    /// The count of committed transactions kept beside the file (`<path>-mark`).
    private let mark: CommitMark
    /// Entries in the table. Changed only inside the store's serialised write transactions; the
    /// mutex lets readers outside the store see it.
    private let depthCache: DepthCache
    /// `<path>-reserve`: space held back for a checkpoint on a full file system.
    private let reservePath: String
    /// Set when an append failed for lack of space, cleared by the next append that succeeds.
    private let spaceShort = Mutex(false)
    /// Rows removed since the log was last truncated.
    private let removedSinceTruncation = Mutex(0)
    /// How many removals make an emptied outbox truncate its log.
    static let truncateAfterRemovals = 1000

    /// The application id stamped into the file (`PRAGMA application_id`): "WHAB".
    static let applicationID: Int32 = 0x5748_4142
    /// The schema version this code writes (`PRAGMA user_version`).
    static let schemaVersion = 4
    /// The size, in bytes, the write-ahead log is cut back to after a checkpoint.
    static let walSizeLimit = 256 * 1024
    /// After how many pages of log SQLite checkpoints on its own.
    static let autoCheckpointPages = 8
    /// The most memory, in KiB, SQLite's page cache of the outbox takes (`PRAGMA cache_size`).
    static let pageCacheKiB = 256
    /// The default cap, in entries.
    static let defaultMaxEntries = 100_000

    /// Opens the outbox at `path`, creating the file and its folder when missing.
    ///
    /// - Throws: ``OutboxError`` when the file is not an SQLite database, belongs to another
    ///   program, has a newer schema, or cannot be created.
    package init(path: String, maxEntries: Int = Outbox.defaultMaxEntries, logger: Logger) throws(OutboxError) {
        guard maxEntries >= 1 else { throw .invalidCap(maxEntries) }
        self.path = path
        self.maxEntries = maxEntries
        self.logger = logger
        try SQLiteFile.createFolder(holding: path, failure: OutboxError.self)
        reservePath = path + "-reserve"
        // SQLite opens an emptied file or a damaged or deleted log silently, as an empty or
        // shorter outbox: look first, compare with the commit mark after, and say what is lost.
        let inspected = SQLiteFileCheck.inspect(path: path)
        let mark = CommitMark(database: path, table: "progress")
        self.mark = mark
        let opened: (OwnedSQLiteConnection, Int, SQLiteDamage?)
        do {
            opened = try Self.open(path: path, mark: mark)
        } catch .storageFull where FileManager.default.fileExists(atPath: reservePath) {
            // Opening needs a little room too (the log's index, recovery): on a file system
            // filled to the last page that is what the reserve is for.
            try? FileManager.default.removeItem(atPath: reservePath)
            logger.notice("Outbox file system full: released the reserve to open the outbox.", metadata: [
                "whereabouts.outbox.path": "\(path)",
            ])
            opened = try Self.open(path: path, mark: mark)
        }
        let (connection, depth, missing) = opened
        damage = inspected + (missing.map { [$0] } ?? [])
        if !damage.isEmpty { SQLiteFileCheck.settle(connection) }
        for found in damage {
            logger.warning("Outbox damaged: reports may be lost.", metadata: [
                "whereabouts.outbox.path": "\(path)", "whereabouts.outbox.damage": "\(found.description)",
            ])
        }
        Self.enableIncrementalVacuum(connection, path: path, logger: logger)
        do {
            epoch = try connection.inTransaction { try connection.row("SELECT epoch FROM sequence") { $0.text(0) } ?? nil } ?? ""
        } catch {
            throw OutboxError.translate(error, path: path)
        }
        self.store = OutboxStore(connection)
        self.depthCache = DepthCache(depth)
        Self.createReserve(at: reservePath)
        logger.info("Outbox opened.", metadata: [
            "whereabouts.outbox.path": "\(path)", "whereabouts.outbox.depth": "\(depth)",
        ])
    }

    /// Entries waiting, as of the last committed change.
    package var depth: Int { depthCache.withLock { $0 } }

    /// Commits one entry and returns its id, dropping the oldest entries first if the cap is reached.
    ///
    /// Returns after the transaction is durable.
    ///
    /// - Throws: ``OutboxError/storageFull(path:)`` when the file system is full even after the
    ///   write-ahead log was checkpointed and cut back (which often makes room: the log holds many
    ///   copies of the same few pages). Nothing stored before is affected.
    package func append(topic: String, payload: Data, tst: Int, createdAt: Date = Date()) async throws(OutboxError) -> OutboxAppendResult {
        // New reports are stored only while the reserve exists (or can be made again): the room
        // it holds is what lets deletes and checkpoints run on a full file system, so reports
        // must never take it.
        guard remakeReserve() else {
            spaceShort.withLock { $0 = true }
            throw .storageFull(path: path)
        }
        do {
            return try await insert(topic: topic, payload: payload, tst: tst, createdAt: createdAt)
        } catch .storageFull {
            spaceShort.withLock { $0 = true }
            // A checkpoint often makes room (the log holds many copies of the same few pages);
            // the reserve stays: it is for deletes, which free space, not for new reports.
            _ = await checkpoint()
            return try await insert(topic: topic, payload: payload, tst: tst, createdAt: createdAt)
        }
    }

    private func insert(topic: String, payload: Data, tst: Int, createdAt: Date) async throws(OutboxError) -> OutboxAppendResult {
        let cap = maxEntries
        let cache = depthCache
        let result = try await perform(rows: 1) { db in
            let before = cache.withLock { $0 }
            var dropped = 0
            if before >= cap {
                dropped = try db.run(
                    "DELETE FROM report WHERE id IN (SELECT id FROM report ORDER BY id LIMIT ?)", [.integer(Int64(before - cap + 1))])
            }
            // The next sequence number lives in the progress row, which every append updates
            // anyway: one page, so a commit still writes two (report and progress).
            let seq = try db.int64("SELECT next_seq FROM progress") ?? 1
            try db.run(
                "INSERT INTO report (topic, payload, tst, created_at, seq) VALUES (?, ?, ?, ?, ?)",
                [.text(topic), .blob(payload), .integer(Int64(tst)), .real(createdAt.timeIntervalSince1970), .integer(seq)])
            let id = db.lastInsertedRowID
            try db.run("UPDATE progress SET newest_tst = max(newest_tst, ?), next_seq = ?", [.integer(Int64(tst)), .integer(seq + 1)])
            let depth = before - dropped + 1
            cache.withLock { $0 = depth }
            return OutboxAppendResult(id: id, dropped: dropped, depth: depth)
        }
        spaceShort.withLock { $0 = false }
        if result.dropped > 0 {
            logger.warning("Outbox full: dropped the oldest reports.", metadata: [
                "whereabouts.outbox.dropped": "\(result.dropped)", "whereabouts.outbox.cap": "\(cap)",
            ])
        }
        return result
    }

    /// The oldest `limit` entries not marked acknowledged, oldest first.
    package func oldest(limit: Int) async throws(OutboxError) -> [OutboxEntry] {
        try await perform { db in
            try db.rows(
                "SELECT id, topic, payload, tst, created_at, seq FROM report WHERE acknowledged_at IS NULL ORDER BY id LIMIT ?",
                [.integer(Int64(limit))], Self.entry(from:))
        }
    }

    /// The id of the newest entry, or `nil` when the outbox is empty.
    package func newestID() async throws(OutboxError) -> Int64? {
        try await perform { db in try db.int64("SELECT MAX(id) FROM report") }
    }

    /// The id of the newest entry published on `topic`, or `nil` when there is none: the newest
    /// location among transitions and other messages that share the outbox.
    package func newestID(topic: String) async throws(OutboxError) -> Int64? {
        try await perform { db in
            try db.int64("SELECT id FROM report WHERE topic = ? ORDER BY id DESC LIMIT 1", [.text(topic)])
        }
    }

    /// The largest `tst` ever committed to this outbox (whether or not it was sent since), or `nil`
    /// when nothing was ever committed. A replayed recording resumes after it.
    package func newestCommittedTST() async throws(OutboxError) -> Int? {
        try await perform { db in
            let value = try db.int("SELECT newest_tst FROM progress") ?? Int.min
            return value == Int.min ? nil : value
        }
    }

    /// Deletes the entries with these ids (the broker acknowledged them). Unknown ids are ignored.
    ///
    /// Returns how many entries were deleted.
    ///
    /// - Parameter retained: The acknowledged entry that went out retained, if any: it is kept as
    ///   ``lastRetained()`` in the same transaction, to be published again to a broker that lost
    ///   its retained messages.
    ///
    /// While the file system is short of space (an append failed for it), or when the outbox
    /// becomes empty after a large drain, the write-ahead log is then checkpointed and cut back,
    /// so that the space the deleted reports took is free for new ones.
    ///
    /// On a full file system (a delete needs room in the log too) the deletes are retried a few
    /// rows per transaction, the log cut back between them, so that even a full disk drains.
    @discardableResult
    package func remove(ids: [Int64], retained: OutboxEntry? = nil) async throws(OutboxError) -> Int {
        do {
            return try await delete(ids: ids, retained: retained)
        } catch .storageFull {
            spaceShort.withLock { $0 = true }
            await truncateLog()
            var removed = 0
            var start = 0
            var releasedReserve = false
            while start < ids.count {
                let end = min(ids.count, start + 4)
                do {
                    removed += try await delete(ids: Array(ids[start..<end]), retained: end == ids.count ? retained : nil)
                    start = end
                } catch .storageFull where !releasedReserve {
                    // Not even a few rows fit in the log: the reserve is what it is kept for.
                    releasedReserve = true
                    await releaseReserve()
                }
            }
            return removed
        }
    }

    private func delete(ids: [Int64], retained: OutboxEntry?) async throws(OutboxError) -> Int {
        guard !ids.isEmpty else { return 0 }
        let cache = depthCache
        let removed = try await perform { db in
            // One prepared statement per id, all in the one transaction: a batch is one commit.
            var removed = 0
            for id in ids { removed += try db.run("DELETE FROM report WHERE id = ?", [.integer(id)]) }
            if let retained { try Self.keepRetained(retained, in: db) }
            cache.withLock { $0 -= removed }
            return removed
        }
        let shouldTruncate = removedSinceTruncation.withLock { count in
            count += removed
            return count
        }
        if spaceShort.withLock({ $0 }) {
            await giveSpaceBack(stepwise: true)
        } else if depth == 0 && shouldTruncate >= Self.truncateAfterRemovals {
            await giveSpaceBack(stepwise: false)
        }
        return removed
    }

    // MARK: - Receipts (docs/receipts.md)

    /// Marks the entries with these ids acknowledged by the broker at `at`: they stay, out of
    /// ``oldest(limit:)``, until a receipt covers them (``removeConfirmed(through:)``), the
    /// publisher falls back to the broker's word (``removeAcknowledged()``), or they are queued
    /// again (``requeueAcknowledged()``). `retained` is recorded as in ``remove(ids:retained:)``.
    package func markAcknowledged(ids: [Int64], retained: OutboxEntry? = nil, at: Date = Date()) async throws(OutboxError) {
        guard !ids.isEmpty else { return }
        try await perform { db in
            for id in ids {
                try db.run("UPDATE report SET acknowledged_at = ? WHERE id = ?", [.real(at.timeIntervalSince1970), .integer(id)])
            }
            if let retained { try Self.keepRetained(retained, in: db) }
        }
    }

    /// Deletes every entry whose sequence number is at most `seq` (a receipt covers it, whether
    /// or not it was acknowledged). Returns how many were deleted.
    @discardableResult
    package func removeConfirmed(through seq: Int64) async throws(OutboxError) -> Int {
        let ids = try await perform { db in
            try db.rows("SELECT id FROM report WHERE seq <= ? ORDER BY id", [.integer(seq)]) { $0.int64(0) ?? 0 }
        }
        return try await remove(inChunks: ids)
    }

    /// Deletes every entry marked acknowledged (no subscriber confirms receipts: the broker's
    /// acknowledgement is the best there is). Returns how many were deleted.
    @discardableResult
    package func removeAcknowledged() async throws(OutboxError) -> Int {
        let ids = try await perform { db in
            try db.rows("SELECT id FROM report WHERE acknowledged_at IS NOT NULL ORDER BY id") { $0.int64(0) ?? 0 }
        }
        return try await remove(inChunks: ids)
    }

    /// Deletes `ids` a thousand at a time (SQLite limits the variables of one statement).
    private func remove(inChunks ids: [Int64]) async throws(OutboxError) -> Int {
        var removed = 0
        for start in stride(from: 0, to: ids.count, by: 1000) {
            removed += try await remove(ids: Array(ids[start..<min(ids.count, start + 1000)]))
        }
        return removed
    }

    /// Clears the acknowledged mark of every entry, so that ``oldest(limit:)`` returns them again,
    /// in order: no receipt covered them in time. Returns how many.
    @discardableResult
    package func requeueAcknowledged() async throws(OutboxError) -> Int {
        try await perform { db in
            try db.run("UPDATE report SET acknowledged_at = NULL WHERE acknowledged_at IS NOT NULL")
        }
    }

    /// What the outbox holds unconfirmed, for the stamp of the next report and the metrics.
    package func confirmation() async throws(OutboxError) -> OutboxConfirmation {
        let cache = depthCache
        return try await read { db in
            // The oldest row by id has the smallest seq and commit time; the acknowledged ones are
            // counted through their partial index.
            let first = try db.row("SELECT seq, created_at FROM report ORDER BY id LIMIT 1") { ($0.int64(0), $0.double(1)) }
            let next = try db.int64("SELECT next_seq FROM progress") ?? 1
            let count = cache.withLock { $0 }
            let acknowledged = try db.row(
                "SELECT COUNT(*) AS count, MIN(acknowledged_at) AS oldest FROM report WHERE acknowledged_at IS NOT NULL"
            ) { ($0.int(0), $0.double(1)) }
            return OutboxConfirmation(
                settled: first?.0 ?? next, unconfirmed: count,
                oldestCommitted: first?.1.map(Date.init(timeIntervalSince1970:)),
                acknowledged: acknowledged?.0 ?? 0,
                oldestAcknowledged: acknowledged?.1.map(Date.init(timeIntervalSince1970:)))
        }
    }

    /// The newest report the broker acknowledged as a retained message (its stored payload), or
    /// `nil` when none was ever acknowledged. Kept across restarts, so that a broker that lost its
    /// retained messages gets the device's last position again.
    package func lastRetained() async throws(OutboxError) -> OutboxEntry? {
        try await perform { db in
            try db.row("SELECT 0 AS id, topic, payload, tst, 0.0 AS created_at, 0 AS seq FROM last_retained", [], Self.entry(from:))
        }
    }

    /// Checkpoints the write-ahead log into the database file and truncates it to zero bytes,
    /// giving its space back to the file system. Failures are logged and otherwise ignored (a
    /// reader or a full disk may prevent it; the next call tries again).
    ///
    /// A checkpoint copies the log's pages into the database file, which may have to grow: on a
    /// file system that is completely full it cannot, and then no write at all could free space.
    /// For that case the outbox keeps a reserve file (`<path>-reserve`, ``reserveSize`` bytes): it
    /// is deleted to make room for the checkpoint and for deletes, and appends wait (reports are
    /// lost) until it can be created again, that is until deletes gave the space back.
    package func truncateLog() async {
        removedSinceTruncation.withLock { $0 = 0 }
        if await checkpoint() { return }
        await releaseReserve()
    }

    /// Deletes the reserve file (if it is there) and checkpoints into the room it held.
    private func releaseReserve() async {
        guard FileManager.default.fileExists(atPath: reservePath) else { return }
        try? FileManager.default.removeItem(atPath: reservePath)
        logger.notice("Outbox file system full: released the reserve to cut the log back.", metadata: [
            "whereabouts.outbox.path": "\(path)",
        ])
        _ = await checkpoint()
    }

    /// After deletes: returns the database file's free pages to the file system
    /// (`PRAGMA incremental_vacuum`), cuts the log back, and makes the reserve again if it was
    /// released, so that new reports can be stored. `stepwise` (a file system short of space)
    /// frees a few pages per step, so that each step's log fits in what little room there is.
    private func giveSpaceBack(stepwise: Bool) async {
        removedSinceTruncation.withLock { $0 = 0 }
        let pagesPerStep = stepwise ? Self.vacuumStepPages : 0  // 0: every free page at once
        for _ in 0..<Self.maxVacuumSteps {
            let freePages = try? await store.run { db -> Int in
                try db.execute("PRAGMA incremental_vacuum(\(pagesPerStep))")
                return try db.int("PRAGMA freelist_count") ?? 0
            }
            guard await checkpoint(), let freePages, freePages > 0 else { break }
        }
        remakeReserve()
    }

    /// Makes the reserve again if it was released, and says so: whichever comes first, an append
    /// or the drain's ``giveSpaceBack(stepwise:)``, logs that reports are stored again. Returns
    /// whether the reserve exists.
    @discardableResult
    private func remakeReserve() -> Bool {
        guard !FileManager.default.fileExists(atPath: reservePath) else { return true }
        Self.createReserve(at: reservePath)
        guard FileManager.default.fileExists(atPath: reservePath) else { return false }
        logger.notice("Outbox file system has room again: new reports are stored again.", metadata: [
            "whereabouts.outbox.path": "\(path)", "whereabouts.outbox.depth": "\(depth)",
        ])
        return true
    }

    /// Pages returned to the file system per vacuum step, and the most steps after one delete.
    static let vacuumStepPages = 8
    static let maxVacuumSteps = 64

    private func checkpoint() async -> Bool {
        do {
            try await store.run { db in try db.checkpointTruncating() }
            return true
        } catch {
            logger.debug("Outbox log checkpoint failed.", metadata: ["whereabouts.error": "\(error)"])
            return false
        }
    }

    /// Opens the database, checks it is ours, migrates it, counts its entries, and compares its
    /// commits with the commit mark.
    private static func open(path: String, mark: CommitMark) throws(OutboxError) -> (OwnedSQLiteConnection, Int, SQLiteDamage?) {
        do {
            let db = try OwnedSQLiteConnection(path: path)
            try configure(db, path: path)
            try db.inTransaction { try Self.checkOwnership(db, path: path) }
            try OutboxSchema.migrate(db)
            let depth = try db.inTransaction { try db.int("SELECT COUNT(*) FROM report") ?? 0 }
            let missing = try db.inTransaction { try mark.verify(db) }
            return (db, depth, missing)
        } catch {
            throw OutboxError.translate(error, path: path)
        }
    }

    /// The connection's settings, set at every open.
    private static func configure(_ db: OwnedSQLiteConnection, path: String) throws {
        // Pages freed by deletes can be given back to the file system (`giveSpaceBack()`);
        // this takes effect in a new file, before its first table (older files: see below).
        try db.execute("PRAGMA auto_vacuum = INCREMENTAL")
        // WAL: a commit appends to the log instead of rewriting pages, and readers never block it.
        let mode = try db.row("PRAGMA journal_mode = WAL") { $0.text(0) } ?? nil
        guard mode?.lowercased() == "wal" else {
            throw SQLiteError(code: 1, message: "could not put \(path) in write-ahead log mode (journal mode \(mode ?? "unknown"))")
        }
        // FULL in WAL mode fsyncs the log at every commit. NORMAL would survive a crash or a
        // kill -9 (the log is in the OS page cache) but could lose the last commits on power
        // loss, which a field device without a UPS sees routinely; the spec promises a reported
        // fix survives a reboot, so every commit is made durable before MQTT sees the message.
        // Set after the journal mode: GRDB, which the outbox used before, set NORMAL when it
        // switched to WAL, after the settings it was given, so its FULL never took effect.
        try db.execute("PRAGMA synchronous = FULL")
        // After a checkpoint the log is cut back to this size instead of keeping its largest
        // size for ever: the space a backlog took is given back once it has drained.
        try db.execute("PRAGMA journal_size_limit = \(Self.walSizeLimit)")
        // Checkpoint every 8 pages (32 KiB of log) instead of SQLite's 1000 (4 MiB): the
        // database file then grows a little at a time, and on a full file system the log
        // never holds more new pages than the reserve file can make room for.
        try db.execute("PRAGMA wal_autocheckpoint = \(Self.autoCheckpointPages)")
        // A backlog waits on disk, not in memory: SQLite's default page cache (2,000 KiB) filled
        // up as a long outage's backlog grew (1.7 MB more resident with 8,000 reports waiting);
        // the drainer reads the oldest rows and appends go to the newest, which fit in far less.
        try db.execute("PRAGMA cache_size = -\(Self.pageCacheKiB)")
    }

    /// The connection's `PRAGMA synchronous` (2 is FULL), for the tests.
    func synchronousSetting() async throws -> Int? {
        try await store.run { db in try db.int("PRAGMA synchronous") }
    }

    /// Rewrites an outbox made before `auto_vacuum = INCREMENTAL` (a `VACUUM`, once), so that
    /// space freed by deletes can go back to the file system. Without room for the copy the file
    /// keeps working as it is, and the next start tries again.
    private static func enableIncrementalVacuum(_ db: OwnedSQLiteConnection, path: String, logger: Logger) {
        do {
            guard try db.int("PRAGMA auto_vacuum") != 2 else { return }
            try db.execute("PRAGMA auto_vacuum = INCREMENTAL")
            try db.execute("VACUUM")
            logger.info("Outbox rewritten once so that deleted reports give their space back.", metadata: [
                "whereabouts.outbox.path": "\(path)",
            ])
        } catch {
            logger.warning("Could not rewrite the outbox for incremental vacuum; space freed by deletes stays in the file.", metadata: [
                "whereabouts.outbox.path": "\(path)", "whereabouts.error": "\(error)",
            ])
        }
    }

    /// The size of the reserve file kept next to the outbox for a full file system.
    static let reserveSize = 64 * 1024

    /// Writes the reserve file if it is missing; leaves nothing behind when there is no room.
    private static func createReserve(at path: String) {
        guard !FileManager.default.fileExists(atPath: path) else { return }
        do {
            try Data(count: reserveSize).write(to: URL(fileURLWithPath: path))
        } catch {
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    // MARK: - Internals

    /// Runs a write transaction on the store's queue, counting it in the commit mark when it
    /// changed something (`rows`: the reports it added) and writing the mark once it committed; on
    /// failure re-reads the depth, since a rolled back transaction may have left the cache ahead
    /// of the table.
    private func perform<T: Sendable>(rows: Int = 0, _ work: @escaping @Sendable (OwnedSQLiteConnection) throws -> T) async throws(OutboxError) -> T {
        do {
            let mark = mark
            return try await store.run { db in
                let before = db.totalChanges
                var count: CommitMark.Count?
                let result = try db.inTransaction {
                    let result = try work(db)
                    if db.totalChanges != before { count = try mark.count(db, rows: rows) }
                    return result
                }
                if let count { mark.record(count) }
                return result
            }
        } catch {
            let cache = depthCache
            if let depth = try? await read({ db in try db.int("SELECT COUNT(*) FROM report") ?? 0 }) {
                cache.withLock { $0 = depth }
            }
            throw OutboxError.translate(error, path: path)
        }
    }

    /// Runs `work` in a read transaction on the store's queue.
    private func read<T: Sendable>(_ work: @escaping @Sendable (OwnedSQLiteConnection) throws -> T) async throws(OutboxError) -> T {
        do {
            return try await store.run { db in try db.inTransaction { try work(db) } }
        } catch {
            throw OutboxError.translate(error, path: path)
        }
    }

    /// Keeps `retained` as the last retained report (``lastRetained()``), inside the caller's transaction.
    private static func keepRetained(_ retained: OutboxEntry, in db: OwnedSQLiteConnection) throws {
        try db.run("DELETE FROM last_retained")
        try db.run(
            "INSERT INTO last_retained (topic, payload, tst) VALUES (?, ?, ?)",
            [.text(retained.topic), .blob(retained.payload), .integer(Int64(retained.tst))])
    }

    /// Refuses a file of another program or of a newer version; stamps a new, empty file.
    private static func checkOwnership(_ db: OwnedSQLiteConnection, path: String) throws {
        guard try SQLiteFile.claim(db, applicationID: Self.applicationID, path: path, failure: OutboxError.self) else { return }
        let version = try db.int("PRAGMA user_version") ?? 0
        guard version <= Self.schemaVersion else {
            throw OutboxError.newerSchema(path: path, version: version)
        }
        try SQLiteFile.refuseNewer(db, knownSteps: OutboxSchema.steps.map(\.name), path: path, failure: OutboxError.self)
    }

    private static func entry(from row: PreparedStatement) -> OutboxEntry {
        OutboxEntry(
            id: row.int64(0) ?? 0, topic: row.text(1) ?? "", payload: row.data(2) ?? Data(), tst: row.int(3) ?? 0,
            createdAt: Date(timeIntervalSince1970: row.double(4) ?? 0), seq: row.int64(5) ?? 0)
    }
}

extension Outbox {
    /// The outbox's row count, shared between the store's queue (which changes it inside write transactions)
    /// and callers of ``Outbox/depth``; the mutex makes it safe.
    private final class DepthCache: Sendable {
        private let value: Mutex<Int>
        init(_ initial: Int) { value = Mutex(initial) }
        func withLock<T: Sendable>(_ body: (inout Int) -> T) -> T { value.withLock { body(&$0) } }
    }
}

/// Damage to the outbox's files that SQLite would open silently, as empty or shorter: the
/// checks are shared with the subscriber's history (SQLiteSupport's ``SQLiteDamage``).
package typealias OutboxDamage = SQLiteDamage

/// What ``Outbox/append(topic:payload:tst:createdAt:)`` did.
package struct OutboxAppendResult: Sendable, Hashable {
    /// The id of the new entry.
    package var id: Int64
    /// How many of the oldest entries were dropped to stay within the cap (usually 0).
    package var dropped: Int
    /// How many entries the outbox holds after the append.
    package var depth: Int
}
