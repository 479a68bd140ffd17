#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import ServiceLifecycle
import WhereaboutsCore
import WhereaboutsMQTT

/// Keeps the publisher's promise while it has nothing to report: when the latest `due` (the
/// ``PromiseLedger``) arrives and no other message has moved it, publishes the retained online
/// presence `{"_type":"lwt","state":"online","since":…,"tst":…,"due":…}` on `<base>/presence`,
/// which promises the next one `--heartbeat` seconds later.
///
/// A stationary device thus costs one small message (and one radio wake-up) per heartbeat
/// interval, and a subscriber can tell it from one whose process or link died (docs/publisher.md,
/// "Honest presence").
struct Heartbeat: Service {
    let connection: any BrokerConnection
    let ledger: PromiseLedger
    let settings: PublisherSettings
    let startedAt: Int
    let logger: Logger

    /// Publishes heartbeats until graceful shutdown.
    func run() async throws {
        let interval = settings.heartbeat
        // Online presence on connect promises the first heartbeat interval.
        ledger.promise(Int(Date().timeIntervalSince1970) + interval)
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let now = Date().timeIntervalSince1970
                let due = Double(ledger.due ?? Int(now))
                if due > now {
                    try? await Task.sleep(for: .seconds(due - now))
                    continue
                }
                await beat(interval: interval)
            }
        }
    }

    /// Publishes one heartbeat; after a failure waits for the connection (at most one interval)
    /// before the loop tries again.
    private func beat(interval: Int) async {
        let now = Int(Date().timeIntervalSince1970)
        let message = PresenceMessage(state: .online, since: startedAt, tst: now, due: now + interval)
        do {
            try await connection.publish(
                to: settings.presenceTopic, payload: ReportEncoder.encode(message), qos: max(.atLeastOnce, settings.qos),
                retain: true, timeout: settings.publishTimeout)
            ledger.promise(now + interval)
            logger.debug("Heartbeat sent.", metadata: ["whereabouts.due": "\(now + interval)"])
        } catch {
            logger.notice("Could not send the heartbeat; it is sent once the broker is reachable.",
                          metadata: ["whereabouts.error": "\(error)"])
            _ = await connection.waitUntilConnected(timeout: .seconds(Int64(interval)))
            // Not at once again if the connection is still down: one try per second at most.
            try? await Task.sleep(for: .seconds(1))
        }
    }
}
