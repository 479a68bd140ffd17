import Foundation
import WhereaboutsMQTT

/// What the subscriber service needs besides the MQTT connection. Every field has a default.
package struct SubscriberConfiguration: Sendable {
    /// Topic prefix of the views: views go to `<viewPrefix>/<id>/view`, events to `<viewPrefix>/<id>/events`.
    package var viewPrefix: String
    /// Root of the members' OwnTracks topics (`owntracks`).
    package var topicPrefix: String
    /// At most this often, in seconds, a circle's view is published. Default 1 s.
    package var viewInterval: Double
    /// Freshness, trail and input limits.
    package var settings: ViewSettings
    /// The circles file, watched for changes; `nil` disables reloading.
    package var circlesPath: String?
    /// How often the circles file's modification time is checked, in seconds. Default 2 s.
    var reloadPollInterval: Double
    /// How many filters go into one SUBSCRIBE or UNSUBSCRIBE. Default 500.
    var subscribeBatchSize: Int
    /// The file that keeps member statuses across restarts; `nil` keeps them in memory only.
    package var statusPath: String?
    /// How often changed statuses are written to ``statusPath``, in seconds. Default 0.5 s.
    var statusWriteInterval: Double
    /// The broker software: a reloaded circles file whose names it cannot carry is refused
    /// (``CirclesFile/check(for:)``). Default `mosquitto`.
    package var brokerKind: BrokerKind = .mosquitto
    /// How the subscriber subscribes to the members' topics. Default ``Subscription/perMember``.
    package var subscription: Subscription = .perMember
    /// The subscriber id receipts are published under, on
    /// `whereabouts/receipts/<user>/<device>/<id>` (docs/receipts.md); `nil` sends no receipts.
    /// ``SubscriberApp`` sets it to the MQTT client id unless ``receipts`` is off.
    var receiptID: String?
    /// Whether ``SubscriberApp`` confirms receipts (with the client id as ``receiptID``). Default true.
    package var receipts: Bool = true
    /// How long one publish (a view, an event, a receipt) may wait for the broker's
    /// acknowledgement before it counts as failed and is sent again (`--publish-timeout`). Default 10 s.
    package var publishTimeout: Duration = .seconds(10)

    /// How the subscriber subscribes to the members' topics.
    package enum Subscription: Sendable, Hashable {
        /// Two filters per member device (`<prefix>/<user>/<device>` and `.../+`): the broker
        /// sends only members' messages, and a reload subscribes and unsubscribes the changes.
        case perMember
        /// Two filters for every device under the prefix (`<prefix>/+/+`, `<prefix>/+/+/+`),
        /// other devices' messages dropped on arrival (not counted as rejections). For NATS,
        /// where each QoS 1 subscription is a JetStream consumer of its own, and thousands of
        /// them make SUBSCRIBE fail (measured: 400 filters refused with 0x80 on the local
        /// cluster).
        case wildcard
    }

    /// Creates a configuration; every argument has the documented default.
    package init(
        viewPrefix: String = "whereabouts/circles", topicPrefix: String = "owntracks", viewInterval: Double = 1,
        settings: ViewSettings = ViewSettings(), circlesPath: String? = nil, reloadPollInterval: Double = 2,
        subscribeBatchSize: Int = 500, statusPath: String? = nil, statusWriteInterval: Double = 0.5
    ) {
        self.statusPath = statusPath
        self.statusWriteInterval = statusWriteInterval
        self.viewPrefix = viewPrefix
        self.topicPrefix = topicPrefix
        self.viewInterval = viewInterval
        self.settings = settings
        self.circlesPath = circlesPath
        self.reloadPollInterval = reloadPollInterval
        self.subscribeBatchSize = subscribeBatchSize
    }

    /// The QoS of every subscription and publish: QoS 1, so that no location, view or event is
    /// lost between the broker and the subscriber (duplicates are harmless: a member's older or
    /// equal `tst` is ignored, a view is replaced).
    package var qos: QoS { .atLeastOnce }

    /// The QoS of the receipts (docs/receipts.md): QoS 1, except on NATS (`--broker-kind nats`),
    /// where each QoS 1 publish is a replicated JetStream store that NATS makes before it reads
    /// the connection's next packet (docs/cluster.md). A receipt is retained either way, the
    /// publishers read it at QoS 0 there, and each receipt covers all before it: one lost on the
    /// way is covered by the next, or costs the publisher a resend, never a report.
    package var receiptQoS: QoS { brokerKind == .nats ? .atMostOnce : .atLeastOnce }

    /// The QoS of the retained circle views (`<view-prefix>/<id>/view`): QoS 1, except on NATS,
    /// where a QoS 1 PUBLISH is also written to the `$MQTT_msgs` stream (replicated to three
    /// nodes) whether or not any QoS 1 subscription reads it, about one write per report at
    /// 10,000 devices (docs/cluster.md). The QoS adds nothing there: NATS acknowledges before it
    /// stores, and the subscriber publishes every view again when a publishing connection is
    /// back (``ViewsAfterReconnect``), which covers a view lost with a node either way.
    package var viewQoS: QoS { brokerKind == .nats ? .atMostOnce : qos }

    /// How often a device's receipt is stored retained, at most (docs/receipts.md): on NATS every
    /// retained publish is a JetStream store replicated to three nodes (docs/cluster.md), so there
    /// a device's receipts go out retained at most once per 30 s, the ones between as plain
    /// messages that the connected publisher reads all the same, and the newest is retained
    /// within 30 s. `nil` (mosquitto): every receipt is retained.
    package var receiptRetainInterval: Duration? { brokerKind == .nats ? .seconds(30) : nil }

    /// The retained view topic of circle `id`.
    func viewTopic(_ id: String) -> String { "\(viewPrefix)/\(id)/view" }

    /// The events topic of circle `id`.
    func eventsTopic(_ id: String) -> String { "\(viewPrefix)/\(id)/events" }
}
