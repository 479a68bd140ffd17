import Logging
import WhereaboutsCore

/// The ``Simulator``'s fixes as a position source, as fast as the consumer takes them; wrap it in
/// a ``ReplaySource`` to pace them in real time. Each iteration starts the simulation afresh, so
/// it yields the same fixes every time.
public struct SimulatorSource: PositionSource {
    /// What is simulated.
    public let options: SimulatorOptions
    /// Always empty: the simulator makes no malformed input (its outliers are valid fixes).
    public let rejections: RejectionCounter

    /// Creates a simulated source.
    public init(options: SimulatorOptions = SimulatorOptions(), logger: Logger) {
        self.options = options
        rejections = RejectionCounter(source: "simulator", logger: logger)
    }

    /// Starts the simulation.
    public func makeAsyncIterator() -> FixIterator {
        var simulator = Simulator(options: options)
        return FixIterator { simulator.next() }
    }
}

/// A fixed list of fixes as a position source (a track read with ``RecordedTrack/read(contentsOf:format:uere:logger:)``, say).
public struct FixListSource: PositionSource {
    /// The fixes, in the order they are yielded.
    public let fixes: [Fix]
    /// The rejections recorded when the fixes were read, if any were passed in.
    public let rejections: RejectionCounter

    /// Creates a source that yields `fixes` in order.
    public init(fixes: [Fix], logger: Logger) {
        self.fixes = fixes
        rejections = RejectionCounter(source: "list", logger: logger)
    }

    /// Starts at the first fix.
    public func makeAsyncIterator() -> FixIterator {
        var remaining = fixes[...]
        return FixIterator { remaining.popFirst() }
    }
}
