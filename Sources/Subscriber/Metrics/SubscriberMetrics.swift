import CoreMetrics
import Prometheus
import Synchronization

/// The subscriber's counters and gauges, recorded through swift-metrics into a Prometheus
/// registry of its own (one per ``CircleViewStore``, so tests and several stores never share
/// series), and rendered by ``render()`` for the dashboard's `GET /metrics`.
///
/// Series (docs/subscriber.md, "Metrics"):
/// - `whereabouts_sub_ingest_total{outcome,reason}`: every message handled. `outcome` is `live`,
///   `backlog`, `older` (fixes), `state` (last will, presence, transition, card), `duplicate`,
///   `ignored` (`reason` = the `_type`) or `rejected` (`reason` = ``MessageRejectionReason/code``).
/// - `whereabouts_sub_fields_dropped_total{field}`: informational fields dropped from accepted
///   messages (out of range or of the wrong type).
/// - `whereabouts_sub_history_rows_total{outcome}`: history rows stored, skipped as duplicates,
///   removed by retention or the size cap, or dropped (``history(_:count:)``).
/// - `whereabouts_sub_views_published_total`, `whereabouts_sub_publish_failures_total`,
///   `whereabouts_sub_events_total{event}`.
/// - Gauges set at each scrape: `whereabouts_sub_members{status}`,
///   `whereabouts_sub_websocket_clients`, `whereabouts_sub_queue_depth{queue}`.
final class SubscriberMetrics: Sendable {
    /// `_type`s that get their own `reason` label when ignored; others count as `other`, so a
    /// sender cannot grow the registry with made-up types.
    static let knownIgnoredTypes: Set<String> = [
        "encrypted", "waypoint", "waypoints", "beacon", "cmd", "status", "steps", "msg",
        "configuration", "request", "dump", "clear", "event", "view",
    ]

    private let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    /// Ingest counters by outcome and reason: made once, so a message costs a dictionary lookup
    /// and an atomic increment, not a registry lookup with a fresh dimensions array.
    private let ingestCounters = Mutex<[String: [String: CoreMetrics.Counter]]>([:])
    /// The outcomes of a location, in the order of ``locationCounters``' slots.
    private static let locationOutcomes = ["live", "backlog", "older", "duplicate"]
    /// The counters of `reason="location"` by outcome slot, once made (the same series as in
    /// ``ingestCounters``).
    private let locationCounters = Mutex<[CoreMetrics.Counter?]>(Array(repeating: nil, count: locationOutcomes.count))

    /// Creates the metrics in a fresh registry.
    init() {
        registry = PrometheusCollectorRegistry()
        factory = PrometheusMetricsFactory(registry: registry)
    }

    /// Counts one handled message. Same label and dimensions share one series in the factory.
    func ingest(outcome: String, reason: String) {
        // A location (nearly every message) finds its counter in a slot: no string hashing.
        let slot = reason == "location" ? Self.locationOutcomes.firstIndex(of: outcome) : nil
        if let slot, let counter = locationCounters.withLock({ $0[slot] }) {
            counter.increment()
            return
        }
        let counter = ingestCounters.withLock { counters in
            if let counter = counters[outcome]?[reason] {
                if let slot { locationCounters.withLock { $0[slot] = counter } }
                return counter
            }
            let counter = CoreMetrics.Counter(
                label: "whereabouts_sub_ingest_total", dimensions: [("outcome", outcome), ("reason", reason)], factory: factory)
            counters[outcome, default: [:]][reason] = counter
            if let slot { locationCounters.withLock { $0[slot] = counter } }
            return counter
        }
        counter.increment()
    }

    /// Counts a dropped informational field.
    func droppedField(_ field: String) {
        CoreMetrics.Counter(label: "whereabouts_sub_fields_dropped_total", dimensions: [("field", field)], factory: factory).increment()
    }

    /// Counts published views (`count` at once).
    func viewsPublished(_ count: Int) {
        guard count > 0 else { return }
        CoreMetrics.Counter(label: "whereabouts_sub_views_published_total", factory: factory).increment(by: count)
    }

    /// Counts a publish that failed (view or event).
    func publishFailed() {
        CoreMetrics.Counter(label: "whereabouts_sub_publish_failures_total", factory: factory).increment()
    }

    /// Counts history rows by `outcome`: `stored`, `duplicate`, `expired` (retention), `capped`
    /// (the size cap), `dropped` (the writer's backlog was full or a write failed at shutdown).
    func history(_ outcome: String, count: Int) {
        guard count > 0 else { return }
        CoreMetrics.Counter(label: "whereabouts_sub_history_rows_total", dimensions: [("outcome", outcome)], factory: factory)
            .increment(by: count)
    }

    /// Counts a circle event handed to the publisher.
    func event(_ kind: String) {
        CoreMetrics.Counter(label: "whereabouts_sub_events_total", dimensions: [("event", kind)], factory: factory).increment()
    }

    /// Sets the gauges and renders every series as Prometheus text.
    func render(members: [MemberStatus: Int], webSocketClients: Int, queues: [String: Int]) -> [UInt8] {
        for status in MemberStatus.allCases {
            CoreMetrics.Gauge(label: "whereabouts_sub_members", dimensions: [("status", status.rawValue)], factory: factory)
                .record(members[status] ?? 0)
        }
        CoreMetrics.Gauge(label: "whereabouts_sub_websocket_clients", factory: factory).record(webSocketClients)
        for (queue, depth) in queues {
            CoreMetrics.Gauge(label: "whereabouts_sub_queue_depth", dimensions: [("queue", queue)], factory: factory).record(depth)
        }
        return registry.emitToBuffer()
    }
}
