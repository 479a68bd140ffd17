import CoreMetrics
import WhereaboutsCore

/// The publisher's counters and gauges, recorded through swift-metrics.
///
/// The executable passes a Prometheus factory whose registry ``MetricsServer`` renders; any other
/// swift-metrics backend works the same. Names follow Prometheus conventions
/// (`whereabouts_pub_*_total` for counters).
public struct PublisherMetrics: Sendable {
    /// Fixes read from the source.
    public let fixesRead: Counter
    /// Reports the policy made (committed to the outbox).
    public let reported: Counter
    /// Messages handed to MQTT (a retry counts again).
    public let published: Counter
    /// Messages the broker acknowledged (PUBACK or PUBCOMP; QoS 0 counts when sent).
    public let acknowledged: Counter
    /// Publish attempts that failed (the entry stays in the outbox).
    public let publishFailures: Counter
    /// Reports dropped by the outbox cap.
    public let droppedByCap: Counter
    /// Entries waiting in the outbox.
    public let outboxDepth: Gauge
    /// Battery level in percent, when there is a battery.
    public let batteryLevel: Gauge
    /// 1 while the `significant` profile is in force, 0 while `active`.
    public let significantProfile: Gauge
    private let rejectedCounters: [RejectionReasonKey: Counter]
    private let commandsAccepted: Counter
    private let commandsRejected: Counter
    private let factory: any MetricsFactory

    /// A rejection reason as a metric label.
    public typealias RejectionReasonKey = String

    /// Creates the metrics in `factory`.
    public init(factory: any MetricsFactory) {
        self.factory = factory
        fixesRead = Counter(label: "whereabouts_pub_fixes_read_total", factory: factory)
        reported = Counter(label: "whereabouts_pub_reports_total", factory: factory)
        published = Counter(label: "whereabouts_pub_published_total", factory: factory)
        acknowledged = Counter(label: "whereabouts_pub_acknowledged_total", factory: factory)
        publishFailures = Counter(label: "whereabouts_pub_publish_failures_total", factory: factory)
        droppedByCap = Counter(label: "whereabouts_pub_outbox_dropped_total", factory: factory)
        outboxDepth = Gauge(label: "whereabouts_pub_outbox_depth", factory: factory)
        batteryLevel = Gauge(label: "whereabouts_pub_battery_percent", factory: factory)
        significantProfile = Gauge(label: "whereabouts_pub_profile_significant", factory: factory)
        rejectedCounters = [:]
        commandsAccepted = Counter(label: "whereabouts_pub_commands_total", dimensions: [("result", "accepted")], factory: factory)
        commandsRejected = Counter(label: "whereabouts_pub_commands_total", dimensions: [("result", "rejected")], factory: factory)
    }

    /// Counts a fix the rejection filters turned away, labelled with the reason.
    public func rejected(reason: String) {
        // Counters with the same label and dimensions share one handler in the factory, so making
        // one per call is cheap and always counts into the same series.
        Counter(label: "whereabouts_pub_fixes_rejected_total", dimensions: [("reason", reason)], factory: factory)
            .increment()
    }

    /// Counts a command from `<base>/cmd`, accepted or rejected.
    public func command(accepted: Bool) {
        (accepted ? commandsAccepted : commandsRejected).increment()
    }
}
