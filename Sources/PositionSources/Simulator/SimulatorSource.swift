import Logging
import WhereaboutsCore

/// The ``Simulator``'s fixes as a position source, as fast as the consumer takes them; wrap it in
/// a ``ReplaySource`` to pace them in real time. Each iteration starts the simulation afresh, so
/// it yields the same fixes every time.
struct SimulatorSource: PositionSource {
    /// What is simulated.
    let options: SimulatorOptions
    /// Always empty: the simulator makes no malformed input (its outliers are valid fixes).
    let rejections: RejectionCounter

    /// Creates a simulated source.
    init(options: SimulatorOptions = SimulatorOptions(), logger: Logger) {
        self.options = options
        rejections = RejectionCounter(source: "simulator", logger: logger)
    }

    /// Starts the simulation.
    func makeAsyncIterator() -> FixIterator {
        var simulator = Simulator(options: options)
        return FixIterator { simulator.next() }
    }
}
