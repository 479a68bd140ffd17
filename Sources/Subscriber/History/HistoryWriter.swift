import Foundation
import Logging
import ServiceLifecycle

/// The history's one writer, as a service: takes the rows ingest hands over (without waiting
/// for SQLite) and commits them in batches, one transaction each; applies retention and the
/// size cap every ``HistoryRetention/interval``, logging and counting what they remove.
///
/// Give it to ``SubscriberService`` (which records every accepted location and transition
/// through it) and run it in the same service group *before* the subscriber, so that on
/// shutdown ingest stops first and the writer then commits everything still pending.
package struct HistoryWriter: Service {
    /// The store written to.
    package let store: HistoryStore
    /// Retention and the size cap.
    package let retention: HistoryRetention
    let recorder: HistoryRecorder
    let views: CircleViewStore
    let logger: Logger
    /// The most rows in one transaction.
    static let batchLimit = 10_000
    /// After committing a batch smaller than ``batchLimit``, the writer waits this long before
    /// taking the next, so rows arriving one by one are committed together. Rows are keyed by
    /// member, so nearly every row of a batch lands on a B-tree page of its own, and each commit
    /// writes every page it touched into the WAL: the fewer commits, the fewer page writes per
    /// row. Measured (SubscriberBenchmark ingest, 1,000 members, BENCHMARKS.md): the history's
    /// CPU per message was 13-17 us before (no wait, GRDB binding), 8.4 us with 50 ms, 7.3, 12.7
    /// and 7.7 us in three runs with 250 ms, 4.8 us in one with 500 ms (loaded machine, noisy).
    /// 250 ms bounds what a kill -9 can lose that was not yet committed; shutdown does not wait.
    static let coalesce: Duration = .milliseconds(250)

    /// Creates the writer. `views` gives each member's circles (for per-circle retention) and the
    /// metrics registry; at most `backlogLimit` rows wait for the disk before new ones are
    /// dropped (counted, logged).
    package init(store: HistoryStore, retention: HistoryRetention = HistoryRetention(), views: CircleViewStore,
                logger: Logger, backlogLimit: Int = 200_000) {
        self.store = store
        self.retention = retention
        self.views = views
        self.logger = logger
        recorder = HistoryRecorder(capacity: backlogLimit)
    }

    /// Rows handed over by ingest and not yet committed.
    package var backlog: Int { recorder.backlog }

    /// Writes until graceful shutdown or cancellation, then commits what is pending and returns.
    package func run() async throws {
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await maintain() }
                await write()
                group.cancelAll()
            }
        } onGracefulShutdown: {
            recorder.finish()
        }
        logger.info("History writer stopped.", metadata: ["whereabouts.history.path": "\(store.path)"])
    }

    private func write() async {
        var failing = false
        while let (rows, dropped) = await recorder.next(limit: Self.batchLimit) {
            if dropped > 0 {
                views.metrics.history("dropped", count: dropped)
                logger.warning("History backlog full: dropped locations the disk could not keep up with.", metadata: [
                    "whereabouts.history.dropped": "\(dropped)",
                ])
            }
            var attempt = 0
            while true {
                do {
                    let counts = try await store.writeCounting(rows)
                    recorder.committed(rows.count)  // receipts may cover these rows now
                    views.metrics.history("stored", count: counts.stored)
                    views.metrics.history("kept_aside", count: counts.keptAside)
                    views.metrics.history("duplicate", count: rows.count - counts.stored - counts.keptAside)
                    if failing { logger.notice("History is written again.", metadata: ["whereabouts.history.path": "\(store.path)"]) }
                    failing = false
                    break
                } catch {
                    attempt += 1
                    if !failing { logger.error("\(error)", metadata: ["whereabouts.history.path": "\(store.path)"]) }
                    failing = true
                    // Retried while running (new rows wait in the bounded backlog); given up on
                    // after a few attempts once shutting down.
                    if recorder.isFinished && attempt >= 3 {
                        views.metrics.history("dropped", count: rows.count)
                        recorder.gaveUp()
                        logger.error("History: gave up on a batch at shutdown.", metadata: ["whereabouts.history.dropped": "\(rows.count)"])
                        break
                    }
                    try? await Task.sleep(for: .seconds(1))
                }
            }
            recorder.completed()
            if rows.count < Self.batchLimit, !recorder.isFinished { try? await Task.sleep(for: Self.coalesce) }
        }
    }

    /// Applies retention and the cap at start and every interval until cancelled.
    private func maintain() async {
        while !Task.isCancelled {
            await applyRetention()
            try? await Task.sleep(for: .seconds(retention.interval))
        }
    }

    /// Applies retention and the cap once (also called by tests).
    func applyRetention(now: Date = Date()) async {
        // Rows the store found lost when it opened (damaged files, HistoryStore.damage): logged
        // there, counted here (at start, or within an interval of a late open on a full disk).
        let lost = store.takeUnreportedLoss()
        if lost > 0 { views.metrics.history("lost", count: lost) }
        do {
            let membership = await views.historyMembership()
            let expired = try await store.removeExpired(retention: retention, membership: membership, now: now)
            if expired > 0 {
                views.metrics.history("expired", count: expired)
                logger.info("History retention removed rows older than their circle's period.", metadata: [
                    "whereabouts.history.removed": "\(expired)", "whereabouts.history.days": "\(retention.days)",
                ])
            }
            if let maxBytes = retention.maxBytes {
                let capped = try await store.enforceCap(maxBytes: maxBytes)
                if capped > 0 {
                    views.metrics.history("capped", count: capped)
                    logger.warning("History size cap reached: removed the oldest rows.", metadata: [
                        "whereabouts.history.removed": "\(capped)", "whereabouts.history.max_bytes": "\(maxBytes)",
                    ])
                }
            }
        } catch {
            logger.error("\(error)", metadata: ["whereabouts.history.path": "\(store.path)"])
        }
    }
}
