#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Outbox
import WhereaboutsMQTT

/// Publishes one batch of outbox entries with up to `maxInFlight` publishes awaiting their
/// acknowledgement at once.
///
/// - Entries are handed to MQTT strictly in the order given: each publish runs as an immediate
///   child task, which calls `mosquitto_publish` before its first suspension, so the next one is
///   started only after the previous one is queued on the (single) connection.
/// - After the first failure, or when `shouldStop` says so, no further entry is handed out; the
///   publishes already in flight are awaited (each bounded by the publish timeout).
struct PublishWindow {
    /// One entry handed to MQTT and how its publish ended.
    struct Sent: Sendable {
        /// The outbox row.
        var id: Int64
        /// Whether it was published with the retain flag.
        var retained: Bool
        /// The failure, or `nil` when acknowledged.
        var error: (any Error)?
    }

    let connection: any BrokerConnection
    let settings: PublisherSettings
    let metrics: PublisherMetrics

    /// Publishes `items` in order; returns what was handed out, in handing order.
    func send(_ items: [(entry: OutboxEntry, plan: DeliveryPlan)], shouldStop: () -> Bool) async -> [Sent] {
        let window = max(1, settings.maxInFlight)
        var results: [Sent?] = []
        await withTaskGroup(of: (Int, (any Error)?).self) { group in
            var inFlight = 0
            var failed = false
            func collect() async {
                guard let (index, error) = await group.next() else { return }
                inFlight -= 1
                results[index]?.error = error
                if error != nil { failed = true }
            }
            for (entry, plan) in items {
                while inFlight >= window && !failed { await collect() }
                if failed || shouldStop() { break }
                let index = results.count
                results.append(Sent(id: entry.id, retained: plan.retain, error: nil))
                inFlight += 1
                metrics.published.increment()
                let connection = self.connection, settings = self.settings
                group.addImmediateTask {
                    do {
                        try await connection.publish(
                            to: entry.topic, payload: plan.payload, qos: settings.qos, retain: plan.retain,
                            timeout: settings.publishTimeout)
                        return (index, nil)
                    } catch {
                        return (index, error)
                    }
                }
            }
            while inFlight > 0 { await collect() }
        }
        let sent = results.compactMap { $0 }
        for item in sent {
            if item.error == nil { metrics.acknowledged.increment() } else { metrics.publishFailures.increment() }
        }
        return sent
    }
}
