#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Outbox

/// Reports the broker acknowledged in the last ``grace``, kept in memory (their outbox rows are
/// already deleted) so that they can be published again when the connection that acknowledged
/// them is lost before they could have been made safe.
///
/// Why: NATS' MQTT listener sends PUBACK for a QoS 1 PUBLISH once it has handed the message on,
/// before its JetStream streams (retained messages, queued QoS 1 messages) store it on a quorum
/// of nodes (nats-server `server/README-MQTT.md`, "Message": "QoS 1: initiate message delivery,
/// send back a PUBACK"). Killing the node right after loses the message; ClusterEndToEndTests
/// saw 1 to 2 of 120 reports lost that way before this existed. Publishing them again costs a
/// duplicate, which receivers drop (same `tst`).
///
/// Rules: reports acknowledged on a connection are released once that same connection is still
/// up ``grace`` after their acknowledgement; when a different connection is up, every report still
/// held is due again (``due(connection:)``). At most ``limit`` reports are held (the oldest go).
struct RecentAcknowledgements: Sendable {
    /// How long after its acknowledgement a report is held.
    let grace: Duration
    /// The most reports held at once.
    let limit: Int
    private var held: [(entry: OutboxEntry, at: ContinuousClock.Instant)] = []
    /// The connection (its `connectedSince`) that acknowledged the held reports.
    private var connection: Date?

    /// Creates an empty holder; a zero `grace` holds nothing.
    init(grace: Duration, limit: Int = 1_000) {
        self.grace = grace
        self.limit = limit
    }

    /// Whether nothing is held.
    var isEmpty: Bool { held.isEmpty }

    /// Holds `entries`, acknowledged at `now` on the connection up since `connection`.
    mutating func record(_ entries: [OutboxEntry], at now: ContinuousClock.Instant, connection: Date) {
        guard grace > .zero, !entries.isEmpty else { return }
        if self.connection != connection { held.removeAll() }  // the caller re-sent them first
        self.connection = connection
        held += entries.map { ($0, now) }
        if held.count > limit { held.removeFirst(held.count - limit) }
    }

    /// The held reports to publish again, oldest first, if the connection up now (`connection`)
    /// is not the one that acknowledged them; otherwise releases those held for longer than the
    /// grace and returns none.
    mutating func due(connection: Date, now: ContinuousClock.Instant) -> [OutboxEntry] {
        guard !held.isEmpty else { return [] }
        guard connection == self.connection else { return held.map(\.entry) }
        held.removeAll { now - $0.at >= grace }
        return []
    }

    /// Marks the held reports as published again on `connection` at `now`: held again from then.
    mutating func republished(on connection: Date, at now: ContinuousClock.Instant) {
        self.connection = connection
        held = held.map { ($0.entry, now) }
    }
}
