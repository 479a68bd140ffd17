import InMemoryLogging
import Logging

extension Logger {
    /// A logger at `level` whose records the returned handler keeps (swift-log's
    /// `InMemoryLogHandler`), so a test can assert on what was logged, at which level, with which
    /// metadata: `handler.entries`.
    public static func capturing(
        label: String = "whereabouts.tests", level: Logger.Level = .trace
    ) -> (logger: Logger, handler: InMemoryLogHandler) {
        var handler = InMemoryLogHandler()
        handler.logLevel = level
        let captured = handler
        return (Logger(label: label, factory: { _ in captured }), handler)
    }
}
