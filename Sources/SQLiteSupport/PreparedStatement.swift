#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import CSQLite

/// A value bound to a statement's `?` parameter.
package enum SQLiteValue: Sendable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    case null
}

/// One prepared statement on SQLite's C API (`sqlite3_stmt`), finalized when released. Used on
/// the thread that owns its connection only (not `Sendable`).
package final class PreparedStatement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer

    /// Prepares `sql` (one statement) on `connection`; `persistent` when it is kept for the
    /// connection's life (`SQLITE_PREPARE_PERSISTENT`).
    init(connection: OpaquePointer, sql: String, persistent: Bool) throws(SQLiteError) {
        var statement: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let code = sqlite3_prepare_v3(connection, sql, -1, flags, &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw SQLiteError(code: code, connection: connection)
        }
        self.handle = statement
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Resets the statement, clears its bindings and binds `arguments` to its parameters in order.
    func bind(_ arguments: [SQLiteValue]) throws(SQLiteError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32 = switch value {
            case .integer(let number): sqlite3_bind_int64(handle, index, number)
            case .real(let number): sqlite3_bind_double(handle, index, number)
            case .text(let text): sqlite3_bind_text(handle, index, text, -1, Self.transient)
            case .blob(let data):
                data.withUnsafeBytes { bytes in
                    // A zero-length blob, not NULL, for an empty payload (`zeroblob` has no pointer to give).
                    bytes.baseAddress.map { sqlite3_bind_blob64(handle, index, $0, UInt64(bytes.count), Self.transient) }
                        ?? sqlite3_bind_zeroblob(handle, index, 0)
                }
            case .null: sqlite3_bind_null(handle, index)
            }
            guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: connection) }
        }
    }

    /// Steps once: `true` when a row is ready to read, `false` when the statement is done.
    func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = SQLiteError(code: code, connection: connection)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Resets the statement after use, so that it holds no read transaction open.
    func finish() { sqlite3_reset(handle) }

    /// Whether column `index` of the current row is NULL.
    package func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }
    /// Column `index` of the current row as an integer, `nil` when NULL.
    package func int64(_ index: Int32) -> Int64? { isNull(index) ? nil : sqlite3_column_int64(handle, index) }
    /// Column `index` of the current row as an integer, `nil` when NULL.
    package func int(_ index: Int32) -> Int? { int64(index).map { Int($0) } }
    /// Column `index` of the current row as a floating-point number, `nil` when NULL.
    package func double(_ index: Int32) -> Double? { isNull(index) ? nil : sqlite3_column_double(handle, index) }
    /// Column `index` of the current row as text, `nil` when NULL.
    package func text(_ index: Int32) -> String? {
        guard !isNull(index) else { return nil }
        guard let bytes = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
    /// Column `index` of the current row as bytes (empty for a zero-length blob), `nil` when NULL.
    package func data(_ index: Int32) -> Data? {
        guard !isNull(index) else { return nil }
        guard let bytes = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, index)))
    }

    /// SQLite copies bound text and blobs at once (`SQLITE_TRANSIENT`).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
