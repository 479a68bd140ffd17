import Logging
import Synchronization

/// A log handler that keeps every record, so tests can assert on what was logged and at what level.
struct CapturingLogHandler: LogHandler {
    /// One log record.
    struct Record: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    /// The records, shared by every copy of the handler; the mutex is their single owner.
    final class Store: Sendable {
        private let records = Mutex<[Record]>([])
        var all: [Record] { records.withLock { $0 } }
        func append(_ record: Record) { records.withLock { $0.append(record) } }
    }

    let store: Store
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        merged.merge(event.metadata ?? [:]) { $1 }
        store.append(Record(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
    }
}

extension CapturingLogHandler {
    /// A logger at `trace` level that records into a fresh store.
    static func logger() -> (Logger, Store) {
        let store = Store()
        return (Logger(label: "whereabouts.tests.capture", factory: { _ in CapturingLogHandler(store: store) }), store)
    }
}
