import Logging
import ServiceLifecycle
import UnixSignals
import WhereaboutsCore

/// Switches the profile on signals: SIGUSR1 selects `significant`, SIGUSR2 selects `active`.
struct ProfileSignals: Service {
    private let reporter: Reporter
    private let logger: Logger

    /// Creates the handler.
    init(reporter: Reporter, logger: Logger) {
        self.reporter = reporter
        self.logger = logger
    }

    /// Handles signals until graceful shutdown.
    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sigusr1, .sigusr2)
        for await signal in signals.cancelOnGracefulShutdown() {
            switch signal {
            case .sigusr1: await reporter.request(.significant, by: "SIGUSR1")
            case .sigusr2: await reporter.request(.active, by: "SIGUSR2")
            default: break
            }
        }
    }
}
