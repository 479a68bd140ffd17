import GRDB
import GRDBSQLite
import WhereaboutsCore

/// A member's stored locations as SQLite steps them, one row at a time, read column by column
/// straight from the statement (`sqlite3_column_*` by index): no `Row`, no `String` and no
/// ``HistoryLocation`` per point. Decoding each point into a ``HistoryLocation`` by column name
/// cost most of `/api/0/locations`' time (about 44,000 points/s, BENCHMARKS.md "Recorder API");
/// this is what lets it stream hundreds of thousands per second.
///
/// Only valid inside the closure of ``HistoryStore/scanLocations(of:from:to:limit:_:)`` that
/// hands it out (it is not copyable, so it cannot leave it).
package struct HistoryLocationRows: ~Copyable {
    /// The integer columns that may be missing (`NULL`), by their index in the statement.
    package enum IntColumn: Int32, Sendable, CaseIterable {
        /// `acc`, metres.
        case acc = 3
        /// `alt`, metres.
        case alt = 4
        /// `vac`, metres.
        case vac = 5
        /// `vel`, km/h.
        case vel = 6
        /// `cog`, degrees.
        case cog = 7
        /// `batt`, percent.
        case batt = 8
        /// `bs`, the battery status.
        case bs = 9
        /// `m`, the monitoring mode.
        case m = 12
        /// `created_at`, epoch seconds.
        case createdAt = 13
    }

    /// The text columns, by their index in the statement.
    package enum TextColumn: Int32, Sendable {
        /// `tid`, the tracker id.
        case tid = 10
        /// `t`, the trigger.
        case t = 11
    }

    /// The columns, in the order ``IntColumn`` and ``TextColumn`` index them.
    /// `received_at` follows at index 14, the device fields' JSON (``withDeviceFields(_:)``) at 15.
    static let columns = "tst, lat, lon, acc, alt, vac, vel, cog, batt, bs, tid, t, m, created_at, received_at, device_fields"

    private let statement: SQLiteStatement
    private let connection: SQLiteConnection?
    private let path: String
    /// Whether the member's user and device follow the location's columns (indexes 16, 17).
    private let withMember: Bool
    /// The current row's `tid` and `t` (`nil`: `NULL`), read once per row (valid until the next
    /// step): the encoder asks for each more than once.
    private var texts = (tid: UnsafeRawBufferPointer(start: nil, count: 0), t: UnsafeRawBufferPointer?.none)
    /// The current row's user and device, read once per row (valid until the next step).
    private var member = (user: UnsafeRawBufferPointer(start: nil, count: 0), device: UnsafeRawBufferPointer(start: nil, count: 0))

    init(statement: SQLiteStatement, connection: SQLiteConnection?, path: String, withMember: Bool = false) {
        self.statement = statement
        self.connection = connection
        self.path = path
        self.withMember = withMember
    }

    /// Steps to the next row; `false` after the last.
    ///
    /// - Throws: ``HistoryError/database(path:reason:)`` with SQLite's message when the step fails.
    package mutating func next() throws(HistoryError) -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW:
            texts = (bytes(at: TextColumn.tid.rawValue) ?? UnsafeRawBufferPointer(start: nil, count: 0), bytes(at: TextColumn.t.rawValue))
            if withMember {
                let none = UnsafeRawBufferPointer(start: nil, count: 0)
                member = (bytes(at: 16) ?? none, bytes(at: 17) ?? none)
            }
            return true
        case SQLITE_DONE: return false
        case let code:
            let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "SQLite error \(code)"
            throw .database(path: path, reason: message)
        }
    }

    /// `tst` of the current row, epoch seconds.
    package var tst: Int { Int(sqlite3_column_int64(statement, 0)) }
    /// `lat` of the current row.
    package var lat: Double { sqlite3_column_double(statement, 1) }
    /// `lon` of the current row.
    package var lon: Double { sqlite3_column_double(statement, 2) }

    /// The value of `column` in the current row; `nil` when it is `NULL`.
    package func int(_ column: IntColumn) -> Int? {
        // `NULL` reads as 0 (and is not converted, so its type stays known): only a 0 needs the
        // second call, which halves the calls per location.
        let value = sqlite3_column_int64(statement, column.rawValue)
        if value == 0, sqlite3_column_type(statement, column.rawValue) == SQLITE_NULL { return nil }
        return Int(value)
    }

    /// Whether `column` holds text in the current row (`false` when it is `NULL`).
    package func hasText(_ column: TextColumn) -> Bool {
        column == .tid ? true : texts.t != nil
    }

    /// Calls `body` with the UTF-8 bytes of `column` in the current row (empty when `NULL`); the
    /// bytes are valid only inside `body`.
    package func withText<Result>(_ column: TextColumn, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(column == .tid ? texts.tid : texts.t ?? UnsafeRawBufferPointer(start: nil, count: 0))
    }

    /// Calls `body` with the UTF-8 of the current row's device fields, a JSON object with the
    /// keys the app sent (`conn`, `p`, `SSID`, `BSSID`, `inrids`, `motionactivities`), or `nil`
    /// when it sent none of them; valid only inside `body`. An encoder can splice its members
    /// into the location object it writes.
    package func withDeviceFields<Result>(_ body: (UnsafeRawBufferPointer?) throws -> Result) rethrows -> Result {
        try body(bytes(at: 15))
    }

    /// The current row as a ``HistoryLocation`` of `member`.
    func location(of member: MemberID) -> HistoryLocation {
        func text(_ column: TextColumn) -> String? {
            hasText(column) ? withText(column) { String(decoding: $0, as: UTF8.self) } : nil
        }
        var fix = LocationMessage(tid: text(.tid) ?? "", tst: tst, lat: lat, lon: lon, acc: int(.acc) ?? 0)
        fix.alt = int(.alt)
        fix.vac = int(.vac)
        fix.vel = int(.vel)
        fix.cog = int(.cog)
        fix.batt = int(.batt)
        fix.bs = int(.bs)
        fix.t = text(.t)
        fix.m = int(.m)
        fix.createdAt = int(.createdAt)
        if let fields = bytes(at: 15) { HistoryDeviceFields.apply(String(decoding: fields, as: UTF8.self), to: &fix) }
        return HistoryLocation(member: member, fix: fix, receivedAt: sqlite3_column_double(statement, 14))
    }

    /// Calls `body` with the UTF-8 of the current row's user and device; only in the rows of
    /// ``HistoryStore/scanLastLocations(user:device:_:)``, which hold several members.
    package func withMember<Result>(_ body: (_ user: UnsafeRawBufferPointer, _ device: UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        precondition(withMember, "HistoryLocationRows.withMember: these rows are of one member")
        return try body(member.user, member.device)
    }

    /// The current row's member; only in the rows of ``HistoryStore/scanLastLocations(user:device:_:)``.
    package var memberID: MemberID {
        withMember { MemberID(user: String(decoding: $0, as: UTF8.self), device: String(decoding: $1, as: UTF8.self)) }
    }

    /// The UTF-8 of the text at `index` in the current row; `nil` when it is `NULL`.
    private func bytes(at index: Int32) -> UnsafeRawBufferPointer? {
        guard let text = sqlite3_column_text(statement, index) else { return nil }
        return UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, index)))
    }
}
