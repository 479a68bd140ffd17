#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
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
///   backlog, but not while the connection still holds publishes that timed out on it
///   (``BrokerConnection/publishesHeldAfterGiveUp()``): their late acknowledgement, or the
///   connection's end, comes first. Acknowledged entries are deleted in one transaction per
///   batch; a crash between acknowledgement and delete re-sends them (same `tst`, receivers drop
///   the duplicate).
/// - On graceful shutdown it keeps draining for up to the drain timeout, then returns; what is
///   left is sent on the next start.
/// - When the source has ended and the outbox is empty, it returns, which ends the service group.
/// - With an acknowledgement grace (`--broker-kind nats`), acknowledged reports are held in memory
///   for the grace and published again if the connection changes meanwhile
///   (``RecentAcknowledgements``).
/// - With a ``ReceiptBook`` (docs/receipts.md): every report goes out stamped with its sequence
///   number; while a subscriber confirms receipts (or before that is known) an acknowledged report
///   is marked and kept until a receipt covers it, and published again, in order, when none does
///   within the receipt timeout; when no subscriber confirms receipts, acknowledged reports are
///   deleted as before, and the log says so once.
struct OutboxDrainer: Service {
    private let outbox: Outbox
    private let connection: any BrokerConnection
    private let settings: PublisherSettings
    private let metrics: PublisherMetrics
    private let doorbell: Doorbell
    private let completion: SourceCompletion
    private let receipts: ReceiptBook?
    private let logger: Logger

    /// Creates the drainer; without `receipts` it deletes every report the broker acknowledged.
    init(
        outbox: Outbox, connection: any BrokerConnection, settings: PublisherSettings,
        metrics: PublisherMetrics, doorbell: Doorbell, completion: SourceCompletion, receipts: ReceiptBook? = nil,
        logger: Logger
    ) {
        self.receipts = receipts
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
        var confirming = ConfirmationProgress()
        /// Set when the source ended while reports still wait for their receipts.
        var receiptDeadline: ContinuousClock.Instant?
        while true {
            if Task.isCancelled { return }
            if let end = deadline() ?? receiptDeadline, ContinuousClock.now >= end {
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
            // A new connection (a broker back, an ACL fixed): what waited is sent again without back-off.
            if receipts != nil, let since = await connection.connectedSince(), since != confirming.connection {
                confirming.connection = since
                confirming.rounds = 0
            }
            let phase = await confirmReceipts(&confirming)
            if phase == .undecided {
                // Whether a subscriber confirms receipts is known within a second of the receipt
                // subscription (retained receipts follow its acknowledgement at once). Until then
                // nothing is sent: a report acknowledged meanwhile would have to be marked (a write
                // on a possibly full disk) or deleted on a PUBACK a receipt should confirm.
                if let end = deadline(), ContinuousClock.now >= end { continue }
                if await connection.connectedSince() == nil {
                    _ = await connection.waitUntilConnected(timeout: remaining(until: deadline(), atMost: .seconds(5)))
                } else {
                    await doorbell.wait(atMost: .milliseconds(100))
                }
                continue
            }
            // Several windows per read, so the window rarely runs dry and the delete transaction
            // (an fsync) is shared by many entries.
            let entries: [OutboxEntry]
            let newestID: Int64?
            let retainedTST: Int?
            do {
                entries = try await outbox.oldest(limit: max(settings.drainBatchSize, 8 * settings.maxInFlight))
                // The newest location: transitions on <base>/event share the outbox but are never retained.
                newestID = try await outbox.newestID(topic: settings.topicBase)
                retainedTST = receipts == nil || entries.isEmpty ? nil : try await outbox.lastRetained()?.tst
            } catch {
                logger.error("Cannot read the outbox; retrying.", metadata: ["whereabouts.error": "\(error)"])
                try? await Task.sleep(for: remaining(until: deadline(), atMost: settings.retryDelay))
                continue
            }
            if entries.isEmpty {
                metrics.outboxDepth.record(outbox.depth)
                if await connection.connectedSince() != nil, await connection.takeFreshSession() {
                    await republishLastRetained()
                }
                if deadline() != nil { return }
                // Reports that wait for their receipts: the source's end waits up to the drain
                // timeout for them; what is left stays for the next run.
                let awaitingReceipts = phase != nil && phase != .brokerOnly && outbox.depth > 0
                if completion.hasEnded {
                    guard awaitingReceipts else { return }
                    if receiptDeadline == nil { receiptDeadline = ContinuousClock.now.advanced(by: settings.drainTimeout) }
                }
                if !awaitingReceipts {
                    // Nothing waits for a receipt or a resend (an empty outbox, or no subscriber
                    // confirms receipts): only a new report, a receipt or a new connection, each of
                    // which rings, gives work. An idle device that a subscriber confirms for woke
                    // here every second, 12.9 thread wake-ups a second in all (docs/publisher.md,
                    // "Wake-ups of an idle device").
                    await doorbell.wait()
                } else {
                    // Receipts and the resend timer need a look now and then.
                    await doorbell.wait(atMost: .seconds(1))
                }
                continue
            }
            guard let since = await connection.connectedSince() else {
                _ = await connection.waitUntilConnected(timeout: remaining(until: deadline(), atMost: .seconds(5)))
                continue
            }
            // Publishes that timed out on this connection are still queued in libmosquitto and go
            // out when the broker reads again: sending their reports again now would queue a copy
            // of the whole window per timeout. Wait for their late acknowledgement (or the end of
            // the connection, after which libmosquitto's queue no longer counts) before resending;
            // the batch is read again only then, not at every look.
            let held = await connection.publishesHeldAfterGiveUp()
            if held > 0 {
                let waitStarted = ContinuousClock.now
                logger.info("Publishes that timed out are still queued for the broker; waiting for their acknowledgement before sending again.", metadata: [
                    "whereabouts.publish.held": "\(held)", "whereabouts.outbox.depth": "\(outbox.depth)",
                ])
                var left = held
                while left > 0, !Task.isCancelled {
                    if let end = deadline() ?? receiptDeadline, ContinuousClock.now >= end { break }
                    await doorbell.wait(atMost: Self.heldPublishCheckInterval)
                    left = await connection.publishesHeldAfterGiveUp()
                }
                logger.info(left == 0 ? "The held publishes were settled; sending again." : "Stopped waiting for held publishes (the drain deadline passed or the publisher is stopping); they stay queued on the connection.", metadata: [
                    "whereabouts.publish.held": "\(left)",
                    "whereabouts.waited_ms": "\(Int((ContinuousClock.now - waitStarted) / .milliseconds(1)))",
                ])
                continue
            }
            // The newest entry goes out retained anyway: a fresh broker session needs nothing more.
            _ = await connection.takeFreshSession()
            let newest = newestID ?? entries[entries.count - 1].id
            let stamp = await receiptStamp(phase: phase)
            let items = entries.map { entry in
                var plan = DeliveryPlan(
                    entry: entry, newestID: newest, connectedSince: since, retried: retried.contains(entry.id),
                    retain: settings.retain, locationTopic: settings.topicBase, retainedTST: retainedTST)
                if let stamp { plan.payload = stamp.apply(to: plan.payload, seq: entry.seq) }
                return (entry: entry, plan: plan)
            }
            let sent = await window.send(items) {
                if let end = deadline(), ContinuousClock.now >= end { return true }
                return false
            }
            let settlement = WindowSettlement(sent.map { ($0.id, $0.retained, $0.error == nil) })
            if !settlement.remove.isEmpty {
                let removed = Set(settlement.remove)
                let retainedID = sent.last { $0.retained && $0.error == nil && removed.contains($0.id) }?.id
                // Kept for a receipt unless no subscriber confirms receipts.
                let keep = phase == .undecided || phase == .receipts
                pending = PendingRemoval(ids: settlement.remove, retained: entries.first { $0.id == retainedID }, keep: keep)
                if !keep { recent.record(entries.filter { removed.contains($0.id) }, at: .now, connection: since) }
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
            if pending.keep {
                try await outbox.markAcknowledged(ids: pending.ids, retained: pending.retained)
            } else {
                try await outbox.remove(ids: pending.ids, retained: pending.retained)
            }
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
        /// Marked acknowledged and kept for a receipt, rather than deleted.
        var keep = false
        var isEmpty: Bool { ids.isEmpty }
    }
}

// MARK: - Receipts (docs/receipts.md)

extension OutboxDrainer {
    /// What the drainer remembers between rounds about receipts.
    struct ConfirmationProgress {
        /// The phase last logged.
        var phase: ReceiptBook.Phase?
        /// The highest sequence number receipts covered so far.
        var coverage: Int64 = 0
        /// Resend rounds since a receipt last moved forward (the back-off doubles per round, at
        /// most ``maxBackoffRounds`` times).
        var rounds = 0
        /// Whether reports were resent and not all confirmed since.
        var resending = false
        /// The connection (its `connectedSince`) the back-off counts on: a new one resets it.
        var connection: Date?
    }

    /// How many times the receipt timeout doubles at most while no receipt moves forward (16x).
    static let maxBackoffRounds = 4

    /// Applies what the receipt book says: logs a change of phase; without receipt-speaking
    /// subscribers deletes the acknowledged reports; with them deletes what receipts cover and
    /// queues again what waited longer than the (backed-off) receipt timeout. Updates the gauges.
    /// Returns the phase, or `nil` without a book.
    private func confirmReceipts(_ progress: inout ConfirmationProgress) async -> ReceiptBook.Phase? {
        guard let receipts else { return nil }
        let phase = receipts.phase()
        metrics.receiptSubscribers.record(receipts.subscriberCount)
        if phase != progress.phase {
            switch phase {
            case .brokerOnly:
                logger.notice("No subscriber confirms receipts for \(settings.topicBase); a broker PUBACK is the best confirmation available.")
            case .receipts:
                logger.info("Subscribers confirm receipts: reports stay in the outbox until a receipt covers them.", metadata: [
                    "whereabouts.receipt.subscribers": "\(receipts.subscriberCount)", "whereabouts.topic": "\(settings.topicBase)",
                ])
            case .undecided:
                break
            }
            progress.phase = phase
        }
        do {
            switch phase {
            case .undecided:
                break
            case .brokerOnly:
                let removed = try await outbox.removeAcknowledged()
                if removed > 0 { metrics.outboxDepth.record(outbox.depth) }
            case .receipts:
                if let coverage = receipts.coverage, coverage > progress.coverage {
                    let removed = try await outbox.removeConfirmed(through: coverage)
                    progress.coverage = coverage
                    if removed > 0 {
                        metrics.confirmed.increment(by: removed)
                        metrics.outboxDepth.record(outbox.depth)
                        progress.rounds = 0
                    }
                }
                try await resendIfOverdue(&progress)
            }
            let state = try await outbox.confirmation()
            let inUse = phase == .receipts
            metrics.unconfirmed.record(inUse ? state.unconfirmed : 0)
            let age = state.oldestCommitted.map { max(0, Date().timeIntervalSince($0)) } ?? 0
            metrics.unconfirmedOldestSeconds.record(inUse ? age : 0)
            if progress.resending && state.unconfirmed == 0 {
                progress.resending = false
                logger.info("Receipts confirm every report again.")
            }
        } catch {
            logger.error("Cannot apply receipts to the outbox; retrying.", metadata: ["whereabouts.error": "\(error)"])
        }
        return phase
    }

    /// Queues again every acknowledged report when the oldest waited for its receipt longer than
    /// the receipt timeout, doubled per round without progress.
    private func resendIfOverdue(_ progress: inout ConfirmationProgress) async throws(OutboxError) {
        let state = try await outbox.confirmation()
        guard let oldest = state.oldestAcknowledged else { return }
        let factor = 1 << min(progress.rounds, Self.maxBackoffRounds)
        let timeout = settings.receiptTimeout * factor
        let waited = Date().timeIntervalSince(oldest)
        guard waited >= Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18 else { return }
        let queued = try await outbox.requeueAcknowledged()
        guard queued > 0 else { return }
        metrics.resent.increment(by: queued)
        logger.warning("Reports not confirmed by a receipt in time; publishing them again.", metadata: [
            "whereabouts.receipt.unconfirmed": "\(queued)", "whereabouts.receipt.waited": "\(Int(waited)) s",
            "whereabouts.receipt.next_timeout": "\(settings.receiptTimeout * (1 << min(progress.rounds + 1, Self.maxBackoffRounds)))",
        ])
        progress.rounds += 1
        progress.resending = true
    }

    /// The stamp for the reports of the next window, or `nil` without receipts.
    private func receiptStamp(phase: ReceiptBook.Phase?) async -> ReceiptStamp? {
        guard phase != nil, let state = try? await outbox.confirmation() else { return nil }
        return ReceiptStamp(epoch: outbox.epoch, confirmation: state, receiptsInUse: phase == .receipts)
    }

    /// How often the drainer looks whether the publishes held after a timeout have cleared (a
    /// count under a lock; nothing wakes the drainer when a late acknowledgement arrives).
    static let heldPublishCheckInterval: Duration = .milliseconds(100)
}
