import Synchronization

/// Set once the position source has ended (a recording fully replayed), so that the drainer
/// empties the outbox and then ends the process.
final class SourceCompletion: Sendable {
    private let ended = Mutex(false)

    /// Creates an unset flag.
    init() {}

    /// Marks the source as ended.
    func markEnded() { ended.withLock { $0 = true } }

    /// Whether the source has ended.
    var hasEnded: Bool { ended.withLock { $0 } }
}
