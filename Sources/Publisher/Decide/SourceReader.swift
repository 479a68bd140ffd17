import Logging
import ServiceLifecycle
import Synchronization
import WhereaboutsCore

/// Reads fixes from the position source into the ``Reporter`` until the source ends or a graceful
/// shutdown stops reading (between fixes: a fix being committed is always finished).
struct SourceReader<Source: AsyncSequence & Sendable>: Service where Source.Element == Fix {
    private let source: Source
    private let reporter: Reporter
    private let doorbell: Doorbell
    private let completion: SourceCompletion
    private let logger: Logger

    /// Creates the reader.
    init(source: Source, reporter: Reporter, doorbell: Doorbell, completion: SourceCompletion, logger: Logger) {
        self.source = source
        self.reporter = reporter
        self.doorbell = doorbell
        self.completion = completion
        self.logger = logger
    }

    /// Reads until the source ends (then marks completion so the drainer empties the outbox and
    /// ends the process) or until graceful shutdown.
    func run() async throws {
        var count = 0
        for try await fix in source.cancelOnGracefulShutdown() {
            count += 1
            try await reporter.handle(fix)
        }
        if !Task.isShuttingDownGracefully && !Task.isCancelled {
            logger.info("The position source ended; draining the outbox.", metadata: ["whereabouts.fixes": "\(count)"])
            completion.markEnded()
            doorbell.ring()
        }
    }
}

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
