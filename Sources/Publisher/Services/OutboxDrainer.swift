import Foundation
import Logging
import Outbox
import WhereaboutsMQTT
import ServiceLifecycle
import Synchronization

/// Publishes outbox entries in order, up to `settings.maxInFlight` awaiting their acknowledgement
/// at once (``PublishWindow``), and deletes each once the broker acknowledged it
/// (``WindowSettlement``).
///
/// - On start, whatever the outbox holds (left by a crash or an outage) goes first, in order, as
///   backlog (see ``DeliveryPlan``); its size is logged.
/// - A failed publish keeps the entry; the drainer waits for the connection and retries it, now as
///   backlog. Acknowledged entries are deleted in one transaction per batch; a crash between
///   acknowledgement and delete re-sends them (same `tst`, receivers drop the duplicate).
/// - On graceful shutdown it keeps draining for up to the drain timeout, then returns; what is
///   left is sent on the next start.
/// - When the source has ended and the outbox is empty, it returns, which ends the service group.
/// - With an acknowledgement grace (`--broker-kind nats`), acknowledged reports are held in memory
///   for the grace and published again if the connection changes meanwhile
///   (``RecentAcknowledgements``).
struct OutboxDrainer: Service {
    private let outbox: Outbox
    private let connection: any BrokerConnection
    private let settings: PublisherSettings
    private let metrics: PublisherMetrics
    private let doorbell: Doorbell
    private let completion: SourceCompletion
    private let logger: Logger

    /// Creates the drainer.
    init(
        outbox: Outbox, connection: any BrokerConnection, settings: PublisherSettings,
        metrics: PublisherMetrics, doorbell: Doorbell, completion: SourceCompletion, logger: Logger
    ) {
        self.outbox = outbox
        self.connection = connection
        self.settings = settings
        self.metrics = metrics
        self.doorbell = doorbell
        self.completion = completion
        self.logger = logger
    }

    /// Drains until the source ended and the outbox is empty, or until shutdown plus drain timeout.
    func run() async throws {
        let deadline = Mutex<ContinuousClock.Instant?>(nil)
        let timeout = settings.drainTimeout
        let doorbell = self.doorbell
        try await withGracefulShutdownHandler {
            try await drain(deadline: { deadline.withLock { $0 } })
        } onGracefulShutdown: {
            deadline.withLock { $0 = ContinuousClock.now.advanced(by: timeout) }
            doorbell.ring()
        }
    }

    private func drain(deadline: () -> ContinuousClock.Instant?) async throws {
        let initial = outbox.depth
        metrics.outboxDepth.record(initial)
        if initial > 0 {
            logger.info("Publishing the backlog left in the outbox.", metadata: ["whereabouts.outbox.depth": "\(initial)"])
        }
        var retried = Set<Int64>()
        var pending = PendingRemoval()
        var failing = false
        var refusals = PublishRefusals(metrics: metrics, logger: logger, retryDelay: settings.retryDelay)
        var recent = RecentAcknowledgements(grace: settings.acknowledgementGrace)
        let window = PublishWindow(connection: connection, settings: settings, metrics: metrics)
        while true {
            if Task.isCancelled { return }
            if let end = deadline(), ContinuousClock.now >= end {
                logLeftover()
                return
            }
            // Acknowledged entries whose delete failed (a full disk) are deleted before anything
            // else is sent, so they are not sent again.
            if !pending.isEmpty {
                guard await settle(&pending) else {
                    try? await Task.sleep(for: remaining(until: deadline(), atMost: settings.retryDelay))
                    continue
                }
            }
            if !recent.isEmpty, let since = await connection.connectedSince() {
                let again = recent.due(connection: since, now: .now)
                if !again.isEmpty, await !publishAgain(again) {
                    try? await Task.sleep(for: remaining(until: deadline(), atMost: settings.retryDelay))
                    continue
                }
                if !again.isEmpty { recent.republished(on: since, at: .now) }
            }
            // Several windows per read, so the window rarely runs dry and the delete transaction
            // (an fsync) is shared by many entries.
            let entries: [OutboxEntry]
            let newestID: Int64?
            do {
                entries = try await outbox.oldest(limit: max(settings.drainBatchSize, 8 * settings.maxInFlight))
                // The newest location: transitions on <base>/event share the outbox but are never retained.
                newestID = try await outbox.newestID(topic: settings.topicBase)
            } catch {
                logger.error("Cannot read the outbox; retrying.", metadata: ["whereabouts.error": "\(error)"])
                try? await Task.sleep(for: remaining(until: deadline(), atMost: settings.retryDelay))
                continue
            }
            if entries.isEmpty {
                metrics.outboxDepth.record(0)
                if await connection.connectedSince() != nil, await connection.takeFreshSession() {
                    await republishLastRetained()
                }
                if deadline() != nil || completion.hasEnded { return }
                await doorbell.wait()
                continue
            }
            guard let since = await connection.connectedSince() else {
                _ = await connection.waitUntilConnected(timeout: remaining(until: deadline(), atMost: .seconds(5)))
                continue
            }
            // The newest entry goes out retained anyway: a fresh broker session needs nothing more.
            _ = await connection.takeFreshSession()
            let newest = newestID ?? entries[entries.count - 1].id
            let items = entries.map { entry in
                (entry: entry, plan: DeliveryPlan(
                    entry: entry, newestID: newest, connectedSince: since, retried: retried.contains(entry.id),
                    retain: settings.retain, locationTopic: settings.topicBase))
            }
            let sent = await window.send(items) {
                if let end = deadline(), ContinuousClock.now >= end { return true }
                return false
            }
            let settlement = WindowSettlement(sent.map { ($0.id, $0.retained, $0.error == nil) })
            if !settlement.remove.isEmpty {
                let removed = Set(settlement.remove)
                let retainedID = sent.last { $0.retained && $0.error == nil && removed.contains($0.id) }?.id
                pending = PendingRemoval(ids: settlement.remove, retained: entries.first { $0.id == retainedID })
                recent.record(entries.filter { removed.contains($0.id) }, at: .now, connection: since)
                retried.subtract(settlement.remove)
                _ = await settle(&pending)
            }
            retried.formUnion(settlement.retry)
            let pause = refusals.review(sent)  // refused by the broker: counted, logged, backed off
            if let error = sent.lazy.compactMap(\.error).first {
                // One warning per run of failures; the retries after it log at debug level.
                logger.log(level: failing ? .debug : .warning, "Publish failed; the report stays in the outbox.", metadata: [
                    "whereabouts.error": "\(error)", "whereabouts.outbox.depth": "\(outbox.depth)",
                ])
                failing = true
            } else if failing && !sent.isEmpty {
                failing = false
                logger.info("Publishing again.", metadata: ["whereabouts.outbox.depth": "\(outbox.depth)"])
            }
            if failing {
                try? await Task.sleep(for: remaining(until: deadline(), atMost: pause))
            }
        }
    }

    /// Deletes acknowledged entries (and records the retained one). On failure (a full disk: a
    /// delete needs room in the write-ahead log too) the log is cut back, the failure logged, and
    /// `pending` kept for the next try. Returns whether the delete succeeded.
    private func settle(_ pending: inout PendingRemoval) async -> Bool {
        do {
            try await outbox.remove(ids: pending.ids, retained: pending.retained)
            pending = PendingRemoval()
            metrics.outboxDepth.record(outbox.depth)
            return true
        } catch {
            logger.error("Cannot delete acknowledged reports from the outbox; retrying (they are not sent again meanwhile).", metadata: [
                "whereabouts.error": "\(error)", "whereabouts.outbox.acknowledged": "\(pending.ids.count)",
            ])
            await outbox.truncateLog()
            return false
        }
    }

    /// Publishes the newest acknowledged report again, retained, as backlog (with `created_at`):
    /// the broker started a new session for us, so it may have lost the retained location too
    /// (restarted without persistence, replaced). Without it a device standing still would be
    /// missing from every circle view until it moved.
    private func republishLastRetained() async {
        guard settings.retain else { return }
        let last: OutboxEntry?
        do {
            last = try await outbox.lastRetained()
        } catch {
            logger.warning("Cannot read the last retained report.", metadata: ["whereabouts.error": "\(error)"])
            return
        }
        guard let last else { return }
        let payload = ReportEncoder.backlogPayload(last.payload, tst: last.tst, now: Date())
        metrics.published.increment()
        do {
            try await connection.publish(to: last.topic, payload: payload, qos: settings.qos, retain: true, timeout: settings.publishTimeout)
            metrics.acknowledged.increment()
            logger.info("New broker session: published the newest report again, retained.", metadata: ["whereabouts.tst": "\(last.tst)"])
        } catch {
            metrics.publishFailures.increment()
            logger.warning("Could not publish the newest report again.", metadata: ["whereabouts.error": "\(error)"])
        }
    }

    /// Publishes reports acknowledged shortly before the connection changed again, in order, as
    /// backlog (with `created_at`); the newest location among them retained when it is still the
    /// newest report acknowledged. Returns whether all were acknowledged.
    private func publishAgain(_ entries: [OutboxEntry]) async -> Bool {
        let newestRetained = settings.retain ? (try? await outbox.lastRetained())?.tst : nil
        let lastLocation = entries.last { $0.topic == settings.topicBase }?.id
        for entry in entries {
            let retain = entry.id == lastLocation && entry.tst == newestRetained
            let payload = ReportEncoder.backlogPayload(entry.payload, tst: entry.tst, now: Date())
            metrics.published.increment()
            do {
                try await connection.publish(to: entry.topic, payload: payload, qos: settings.qos, retain: retain, timeout: settings.publishTimeout)
                metrics.acknowledged.increment()
            } catch {
                metrics.publishFailures.increment()
                logger.warning("Could not publish recently acknowledged reports again; retrying.", metadata: ["whereabouts.error": "\(error)"])
                return false
            }
        }
        logger.info(
            "The connection changed soon after acknowledgements: published those reports again.",
            metadata: ["whereabouts.reports": "\(entries.count)", "whereabouts.grace": "\(settings.acknowledgementGrace)"])
        return true
    }

    private func remaining(until deadline: ContinuousClock.Instant?, atMost limit: Duration) -> Duration {
        guard let deadline else { return limit }
        return max(.zero, min(limit, deadline - ContinuousClock.now))
    }

    private func logLeftover() {
        let left = outbox.depth
        if left > 0 {
            logger.warning("Drain timeout reached; reports stay in the outbox for the next start.", metadata: [
                "whereabouts.outbox.depth": "\(left)",
            ])
        }
    }
}

extension OutboxDrainer {
    /// Acknowledged outbox rows waiting to be deleted, and the retained one among them.
    private struct PendingRemoval {
        var ids: [Int64] = []
        var retained: OutboxEntry?
        var isEmpty: Bool { ids.isEmpty }
    }
}
