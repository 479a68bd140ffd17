import Logging
import ServiceLifecycle
import Synchronization

/// What the dashboard's graceful shutdown closed: counted where it was closed, and logged once
/// the server has stopped (``ShutdownReport``).
final class ShutdownTally: Sendable {
    /// The connections closed by one shutdown, by kind.
    struct Counts: Equatable, Sendable {
        /// WebSockets (views, Recorder) closed with a normal closure.
        var webSockets = 0
        /// Connections that had not sent a whole request head yet (a browser's spare connection).
        var withoutRequest = 0
        /// Connections still open ``UnstartedConnectionCloser/grace`` after the shutdown began.
        var overdue = 0
    }

    private let counts = Mutex(Counts())

    /// Creates a tally of nothing closed.
    init() {}

    /// Counts a WebSocket closed by the shutdown.
    func closedWebSocket() { counts.withLock { $0.webSockets += 1 } }

    /// Counts a connection closed before it sent a request.
    func closedWithoutRequest() { counts.withLock { $0.withoutRequest += 1 } }

    /// Counts a connection closed because it outlived the shutdown's grace.
    func closedOverdue() { counts.withLock { $0.overdue += 1 } }

    /// What was closed so far.
    var counted: Counts { counts.withLock { $0 } }
}

/// Logs, once the dashboard's server has stopped after a graceful shutdown, what the shutdown
/// closed. It is the application's first service, so the service group stops it last, after the
/// server.
struct ShutdownReport: Service {
    let tally: ShutdownTally
    let logger: Logger

    func run() async throws {
        // Cancelled (not a graceful shutdown): nothing to report.
        guard (try? await gracefulShutdown()) != nil else { return }
        let closed = tally.counted
        logger.info("Dashboard stopped.", metadata: [
            "whereabouts.http.closed_websockets": "\(closed.webSockets)",
            "whereabouts.http.closed_without_request": "\(closed.withoutRequest)",
            "whereabouts.http.closed_overdue": "\(closed.overdue)",
        ])
    }
}
