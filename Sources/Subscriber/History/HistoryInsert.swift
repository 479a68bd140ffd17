import GRDB
import GRDBSQLite
import WhereaboutsCore

/// One prepared `INSERT OR IGNORE` of the history writer, bound and stepped with the raw sqlite3
/// API by column index.
///
/// Why hand-written: binding through GRDB (`setUncheckedArguments` with an array of 16
/// `DatabaseValueConvertible?`, then `execute()`) builds an array and boxes values per row and
/// converts each column to a `DatabaseValue`; this binds by index without allocating. Measured
/// together with the writer's wait after small batches (`SubscriberBenchmark ingest`,
/// BENCHMARKS.md "Ingest with `--history` on against off"): the history's CPU per message went
/// from 13-17 us to 7-8 us; the two changes were not measured apart. With this binding, `perf`
/// put SQLite's own code at 1.6% of all samples on the writer's threads and Swift and Foundation
/// at about 1.2%. The statement still comes from GRDB's cache on the writer connection, inside
/// GRDB's transaction; only the per-row binding and stepping bypass it.
struct HistoryInsert {
    private let statement: OpaquePointer
    private let connection: OpaquePointer?
    /// The column being bound next (1-based).
    private var column: Int32 = 1

    /// Wraps GRDB's prepared `statement` of `db`.
    init(_ statement: Statement, in db: Database) {
        self.statement = statement.sqliteStatement
        connection = db.sqliteConnection
    }

    /// SQLite copies text bound with this destructor before `bind` returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    mutating func bind(_ value: Int64) { sqlite3_bind_int64(statement, next(), value) }
    mutating func bind(_ value: Int) { sqlite3_bind_int64(statement, next(), Int64(value)) }
    mutating func bind(_ value: Double) { sqlite3_bind_double(statement, next(), value) }

    mutating func bind(_ value: Int?) {
        let index = next()
        if let value { sqlite3_bind_int64(statement, index, Int64(value)) } else { sqlite3_bind_null(statement, index) }
    }

    mutating func bind(_ value: String?) {
        let index = next()
        guard var value else {
            sqlite3_bind_null(statement, index)
            return
        }
        value.withUTF8 { bytes in
            if let base = bytes.baseAddress {
                let text = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
                _ = sqlite3_bind_text(statement, index, text, Int32(bytes.count), Self.transient)
            } else {
                _ = sqlite3_bind_text(statement, index, "", 0, Self.transient)
            }
        }
    }

    /// Binds the location columns `tst, lat, lon, acc, alt, vac, vel, cog, batt, bs, tid, t, m,
    /// created_at` of `fix`, in that order.
    mutating func bind(_ fix: LocationMessage) {
        bind(fix.tst)
        bind(fix.lat)
        bind(fix.lon)
        bind(fix.acc)
        bind(fix.alt as Int?)
        bind(fix.vac as Int?)
        bind(fix.vel as Int?)
        bind(fix.cog as Int?)
        bind(fix.batt as Int?)
        bind(fix.bs as Int?)
        bind(fix.tid as String?)
        bind(fix.t)
        bind(fix.m)
        bind(fix.createdAt)
    }

    /// Runs the bound insert and returns how many rows it added (0: a duplicate of the key),
    /// leaving the statement ready for the next row.
    ///
    /// - Throws: GRDB's `DatabaseError` with SQLite's code and message (`SQLITE_FULL` ...).
    mutating func step() throws -> Int {
        column = 1
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard code == SQLITE_DONE else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
        }
        return Int(sqlite3_changes(connection))
    }

    private mutating func next() -> Int32 {
        defer { column += 1 }
        return column
    }
}
