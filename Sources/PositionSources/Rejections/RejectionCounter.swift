#if canImport(Glibc)
import Glibc
#endif
import Logging
import Synchronization
import WhereaboutsCore

/// The live tally of what one position source rejected, shared between the source (which records)
/// and its owner (which reads ``snapshot``, for example to export metrics).
///
/// Each rejection is logged: the first of each reason at `info`, the rest at `debug`, with the
/// metadata keys `whereabouts.source`, `whereabouts.reject.reason` and `whereabouts.reject.at`.
/// Details never contain coordinates.
public final class RejectionCounter: Sendable {
    // The only mutable state; the mutex is its single owner.
    private let state = Mutex(SourceRejections())
    private let logger: Logger
    private let sourceName: String

    /// Creates a counter for the source called `sourceName` that logs through `logger`.
    public init(source sourceName: String, logger: Logger) {
        self.sourceName = sourceName
        self.logger = logger
    }

    /// The counts so far.
    public var snapshot: SourceRejections {
        state.withLock { $0 }
    }

    /// Counts one rejection and logs it; `location` says where (a line number, an address).
    public func record(_ reason: SourceRejectionReason, at location: @autoclosure () -> String = "", detail: @autoclosure () -> String = "") {
        let isFirst = state.withLock { $0.record(reason) }
        let level: Logger.Level = isFirst ? .info : .debug
        guard logger.logLevel <= level else { return }
        let extra = detail()
        logger.log(
            level: level,
            "Skipped input: \(reason.description)\(extra.isEmpty ? "" : " (\(extra))")\(isFirst ? "; further rejections for this reason are logged at debug level" : "")",
            metadata: [
                "whereabouts.source": "\(sourceName)",
                "whereabouts.reject.reason": "\(reason.rawValue)",
                "whereabouts.reject.at": "\(location())",
            ]
        )
    }
}

/// Counts of the input a position source skipped, per ``SourceRejectionReason``.
///
/// A plain value: take a snapshot from a ``RejectionCounter`` and print it, export it as metrics or
/// compare it in a test.
public typealias SourceRejections = RejectionTally<SourceRejectionReason>
