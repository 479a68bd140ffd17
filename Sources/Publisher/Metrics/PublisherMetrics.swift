import CoreMetrics
import WhereaboutsCore

/// The publisher's counters and gauges, recorded through swift-metrics.
///
/// The executable passes a Prometheus factory whose registry ``MetricsServer`` renders; any other
/// swift-metrics backend works the same. Names follow Prometheus conventions
/// (`whereabouts_pub_*_total` for counters).
struct PublisherMetrics: Sendable {
    /// Fixes read from the source.
    let fixesRead: Counter
    /// Reports the policy made (committed to the outbox).
    let reported: Counter
    /// Messages handed to MQTT (a retry counts again).
    let published: Counter
    /// Messages the broker acknowledged (PUBACK or PUBCOMP; QoS 0 counts when sent).
    let acknowledged: Counter
    /// Publish attempts that failed (the entry stays in the outbox).
    let publishFailures: Counter
    /// Reports dropped by the outbox cap.
    let droppedByCap: Counter
    /// Reports the outbox could not store (a full disk, an I/O error): lost.
    let lost: Counter
    /// `transition` messages committed (places entered and left).
    let transitions: Counter
    private let waypointsRejected: Counter
    /// Entries waiting in the outbox.
    let outboxDepth: Gauge
    /// Reports covered by receipts (docs/receipts.md).
    let confirmed: Counter
    /// Reports queued again because no receipt covered them within the receipt timeout.
    let resent: Counter
    /// Reports held unconfirmed while receipts are in use (0 otherwise).
    let unconfirmed: Gauge
    /// Age in seconds of the oldest unconfirmed report (0 when none).
    let unconfirmedOldestSeconds: Gauge
    /// Subscribers that announced receipts for the device (0: the broker's word only).
    let receiptSubscribers: Gauge
    /// 1 while the `significant` profile is in force, 0 while `active`.
    let significantProfile: Gauge
    private let commandsAccepted: Counter
    private let commandsRejected: Counter
    private let commandsRetained: Counter
    private let factory: any MetricsFactory

    /// Creates the metrics in `factory`.
    init(factory: any MetricsFactory) {
        self.factory = factory
        fixesRead = Counter(label: "whereabouts_pub_fixes_read_total", factory: factory)
        reported = Counter(label: "whereabouts_pub_reports_total", factory: factory)
        published = Counter(label: "whereabouts_pub_published_total", factory: factory)
        acknowledged = Counter(label: "whereabouts_pub_acknowledged_total", factory: factory)
        publishFailures = Counter(label: "whereabouts_pub_publish_failures_total", factory: factory)
        droppedByCap = Counter(label: "whereabouts_pub_outbox_dropped_total", factory: factory)
        lost = Counter(label: "whereabouts_pub_reports_lost_total", factory: factory)
        transitions = Counter(label: "whereabouts_pub_transitions_total", factory: factory)
        waypointsRejected = Counter(label: "whereabouts_pub_waypoints_rejected_total", factory: factory)
        outboxDepth = Gauge(label: "whereabouts_pub_outbox_depth", factory: factory)
        confirmed = Counter(label: "whereabouts_pub_confirmed_total", factory: factory)
        resent = Counter(label: "whereabouts_pub_resent_total", factory: factory)
        unconfirmed = Gauge(label: "whereabouts_pub_unconfirmed", factory: factory)
        unconfirmedOldestSeconds = Gauge(label: "whereabouts_pub_unconfirmed_oldest_seconds", factory: factory)
        receiptSubscribers = Gauge(label: "whereabouts_pub_receipt_subscribers", factory: factory)
        significantProfile = Gauge(label: "whereabouts_pub_profile_significant", factory: factory)
        commandsAccepted = Counter(label: "whereabouts_pub_commands_total", dimensions: [("result", "accepted")], factory: factory)
        commandsRejected = Counter(label: "whereabouts_pub_commands_total", dimensions: [("result", "rejected")], factory: factory)
        commandsRetained = Counter(label: "whereabouts_pub_commands_total", dimensions: [("result", "retained")], factory: factory)
    }

    /// Counts a fix the rejection filters turned away, labelled with the reason.
    func rejected(reason: String) {
        // Counters with the same label and dimensions share one handler in the factory, so making
        // one per call is cheap and always counts into the same series.
        Counter(label: "whereabouts_pub_fixes_rejected_total", dimensions: [("reason", reason)], factory: factory)
            .increment()
    }

    /// Counts a report the broker refused (an MQTT 5 PUBACK failure, e.g. `not_authorized`),
    /// labelled with the reason; the report stays in the outbox (``PublishRefusals``).
    func publishRefused(reason: String) {
        Counter(label: "whereabouts_pub_publish_refused_total", dimensions: [("reason", reason)], factory: factory)
            .increment()
    }

    /// Counts a waypoint of a `setWaypoints` command that was refused.
    func waypointRejected() {
        waypointsRejected.increment()
    }

    /// Counts a command from `<base>/cmd`, accepted or rejected.
    func command(accepted: Bool) {
        (accepted ? commandsAccepted : commandsRejected).increment()
    }

    /// Counts a retained command, which is ignored (a retained `reportLocation` would fire on every
    /// restart).
    func retainedCommandIgnored() {
        commandsRetained.increment()
    }

    /// Records the battery level in percent. The gauge exists only once a battery was read, so a
    /// device without one exports no `whereabouts_pub_battery_percent` at all rather than a 0 that
    /// reads as an empty battery.
    func recordBattery(level: Int) {
        Gauge(label: "whereabouts_pub_battery_percent", factory: factory).record(level)
    }

    /// Counts input the position source skipped (bad checksums, points without a time, ...),
    /// labelled with the source's reason; `count` is how many since the last call.
    func sourceRejected(reason: String, count: Int) {
        guard count > 0 else { return }
        Counter(label: "whereabouts_pub_source_rejected_total", dimensions: [("reason", reason)], factory: factory)
            .increment(by: count)
    }
}
