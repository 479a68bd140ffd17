import Foundation
import Logging
import WhereaboutsCore
import WhereaboutsMQTT

/// Publishes the subscriber's receipts (docs/receipts.md): once a second while reports come in, one
/// retained receipt per device whose confirmed point moved or that a resent duplicate asked for;
/// and the announcements, "I confirm this device's reports", for member devices.
struct ReceiptSender<Connection: BrokerConnection> {
    let ledger: ReceiptLedger
    let connection: Connection
    /// The subscriber level of the receipt topics.
    let subscriberID: String
    /// The receipts' QoS (``SubscriberConfiguration/receiptQoS``).
    let qos: QoS
    /// At most how often a device's receipt is retained (``SubscriberConfiguration/receiptRetainInterval``);
    /// `nil`: every receipt is.
    var retainInterval: Duration? = nil
    /// How long one receipt's publish may wait for the broker (``SubscriberConfiguration/publishTimeout``).
    var publishTimeout: Duration = .seconds(10)
    /// Tickets up to this value are durable (history committed, status file written, or all).
    let durableThrough: @Sendable () -> Int
    let logger: Logger
    /// How often receipts go out: at most one per device per interval.
    static var interval: Duration { .seconds(1) }

    private func topic(_ member: MemberID) -> String {
        ReceiptTopic.topic(user: member.user, device: member.device, subscriber: subscriberID)
    }

    /// Sends due receipts every ``interval`` until cancelled. A failed publish is retried at the
    /// next interval; the first failure of a run is logged at warning level.
    ///
    /// With nothing to send (no report noted since the last round, none waiting for its commit,
    /// no failed receipt, no receipt waiting to be retained) it waits for ingest to note one
    /// (``ReceiptLedger/waitForWork()``) instead of looking every second, then takes the
    /// receipts one ``interval`` later: a receipt still goes out at most one interval after the
    /// commit that makes it due, and at most once per device per interval.
    ///
    /// With ``retainInterval`` a device's receipt is retained only when its last retained one is
    /// at least that old; one sent plainly in between is retained once the interval has passed,
    /// unless a newer receipt was retained meanwhile. A publisher that is connected reads every
    /// receipt either way; one that connects reads the retained one, at most ``retainInterval``
    /// behind, and sends again what it does not cover (answered with a receipt: nothing is lost).
    func run() async {
        var failing = false
        var retainedAt: [MemberID: ContinuousClock.Instant] = [:]
        var sentPlainly: [MemberID: ReceiptLedger.Due] = [:]
        while !Task.isCancelled {
            if sentPlainly.isEmpty { await ledger.waitForWork() }
            try? await Task.sleep(for: Self.interval)
            var due = ledger.takeDue(durableThrough: durableThrough())
            let instant = ContinuousClock.now
            func retainable(_ member: MemberID) -> Bool {
                guard let retainInterval, let last = retainedAt[member] else { return true }
                return instant - last >= retainInterval
            }
            if retainInterval != nil {
                // The newest receipt of a device that went out plainly, retained once its interval passed.
                let dueMembers = Set(due.map(\.member))
                for (member, receipt) in sentPlainly where !dueMembers.contains(member) && retainable(member) {
                    sentPlainly[member] = nil
                    if ledger.hasAnswered(member) { due.append(receipt) }
                }
            }
            guard !due.isEmpty else { continue }
            let now = Int(Date().timeIntervalSince1970)
            var failed: [ReceiptLedger.Due] = []
            for receipt in due {
                let payload = Self.encode(ReceiptMessage(epoch: receipt.epoch, seq: receipt.seq, tst: now))
                let retain = retainable(receipt.member)
                do {
                    try await connection.publish(to: topic(receipt.member), payload: payload, qos: qos, retain: retain, timeout: publishTimeout)
                    if retainInterval != nil {
                        if retain {
                            retainedAt[receipt.member] = instant
                            sentPlainly[receipt.member] = nil
                        } else {
                            sentPlainly[receipt.member] = receipt
                        }
                    }
                } catch {
                    failed.append(receipt)
                    if !failing {
                        logger.warning("Could not publish a receipt; retrying.", metadata: [
                            "whereabouts.member": "\(receipt.member)", "whereabouts.error": "\(error)",
                        ])
                    }
                }
            }
            if !failed.isEmpty { ledger.retry(failed) }
            if failing && failed.isEmpty { logger.info("Receipts are published again.") }
            failing = !failed.isEmpty
        }
    }

    /// Publishes the retained announcement for each of `members` not yet answered in this run
    /// (an answered one already has a receipt retained, which the announcement would replace).
    func announce(_ members: [MemberID]) async {
        let now = Int(Date().timeIntervalSince1970)
        let payload = Self.encode(ReceiptMessage(tst: now))
        var failures = 0
        for member in members where !ledger.hasAnswered(member) {
            do {
                try await connection.publish(to: topic(member), payload: payload, qos: qos, retain: true, timeout: publishTimeout)
            } catch {
                failures += 1
            }
        }
        if failures > 0 {
            logger.warning("Could not announce receipts for some members; their publishers rely on the broker until the next start or reload.", metadata: [
                "whereabouts.members": "\(failures)",
            ])
        } else if !members.isEmpty {
            logger.info("Announced receipts for the members' devices.", metadata: [
                "whereabouts.members": "\(members.count)", "whereabouts.receipt.subscriber": "\(subscriberID)",
            ])
        }
    }

    /// Clears the retained receipts of `members` (removed from the circles): their publishers
    /// no longer wait for this subscriber.
    func withdraw(_ members: [MemberID]) async {
        for member in members {
            ledger.forget(member)
            do {
                try await connection.publish(to: topic(member), payload: Data(), qos: qos, retain: true, timeout: publishTimeout)
            } catch {
                logger.warning("Could not clear a removed member's receipt.", metadata: [
                    "whereabouts.member": "\(member)", "whereabouts.error": "\(error)",
                ])
            }
        }
    }

    static func encode(_ receipt: ReceiptMessage) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(receipt)) ?? Data()
    }
}
