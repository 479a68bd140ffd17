import PositionSources
import Synchronization

/// Carries the position source's own rejections (bad NMEA checksums, GPX points without a time,
/// gpsd reports without a fix, ...) into ``PublisherMetrics`` as
/// `whereabouts_pub_source_rejected_total{reason}`.
///
/// The source counts in its ``RejectionCounter``; ``sync()`` adds what was counted since the last
/// call. The metrics server calls it before every rendering, so a scrape always sees the current
/// tally, even while the source yields no fix at all (a receiver without a fix for hours).
final class SourceRejectionExport: Sendable {
    private let counter: RejectionCounter
    private let metrics: PublisherMetrics
    /// The tally already exported; the mutex makes concurrent scrapes add each rejection once.
    private let exported = Mutex(SourceRejections())

    /// Exports the rejections `counter` records into `metrics`.
    init(counter: RejectionCounter, metrics: PublisherMetrics) {
        self.counter = counter
        self.metrics = metrics
    }

    /// Adds the rejections counted since the last call to the metrics.
    func sync() {
        let now = counter.snapshot
        let metrics = self.metrics
        exported.withLock { previous in
            for (reason, count) in now.sorted {
                metrics.sourceRejected(reason: reason.rawValue, count: count - previous[reason])
            }
            previous = now
        }
    }
}
