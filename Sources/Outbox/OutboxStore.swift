import Dispatch
import SQLiteSupport
import Synchronization

/// The outbox's one SQLite connection and its one owner: a `Mutex` holds it, and every use runs
/// on the outbox's serial dispatch queue, so that SQLite's fsyncs never block a thread of the
/// Swift cooperative pool (as GRDB's queue did before).
final class OutboxStore: Sendable {
    private let connection: Mutex<OwnedSQLiteConnection>
    private let queue = DispatchQueue(label: "whereabouts.outbox")

    /// Takes over `connection`; nothing else may use it after.
    init(_ connection: sending OwnedSQLiteConnection) {
        self.connection = Mutex(connection)
    }

    /// Runs `work` with the connection on the store's queue and returns what it returns. Not
    /// cancellable: a transaction that started is finished (committed or rolled back).
    func run<T: Sendable>(_ work: @escaping @Sendable (OwnedSQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try self.connection.withLock { db throws -> T in try work(db) } })
            }
        }
    }
}
