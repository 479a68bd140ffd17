#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OwnTracksCrypto
import WhereaboutsCore
import WhereaboutsMQTT

/// Everything the publisher pipeline needs to know, resolved from flags and the config file.
///
/// Every field has the documented default, so a test sets only what it cares about.
package struct PublisherSettings: Sendable {
    /// The tracker id sent as `tid` (two characters).
    package var tid: String
    /// The location topic, `owntracks/<user>/<device>` by default, the names exactly as given.
    package var topicBase: String
    /// QoS for location messages. Default 1; presence and the card go at least at QoS 1.
    package var qos: QoS
    /// Whether live location messages are retained. Default true.
    package var retain: Bool
    /// The `ms` sent with reports that carry a velocity, when the policy does not set its own.
    package var maxSilence: Int?
    /// How long a shutdown may spend draining the outbox. Default 10 s.
    package var drainTimeout: Duration
    /// How many outbox entries the drainer reads at a time (and deletes in one transaction once
    /// acknowledged). Default 64.
    package var drainBatchSize: Int
    /// How many publishes may await their acknowledgement at once (the drainer's window). Default 20.
    package var maxInFlight: Int
    /// How long one publish may wait for its acknowledgement before it counts as failed
    /// (`--publish-timeout`). Default 10 s.
    package var publishTimeout: Duration
    /// How long the drainer waits before retrying after a failed publish.
    package var retryDelay: Duration

    /// The OwnTracks secret every published payload is encrypted with (`--secret-file`), or `nil`
    /// (default) to publish plain JSON.
    package var encryptionKey: OwnTracksKey? = nil
    /// The card published retained on `<base>/info` after each connect (`--card-name`,
    /// `--card-face`), or `nil` (default) for none.
    package var card: CardMessage? = nil
    /// Seconds within which the next message is promised (`due` in every location message and
    /// online presence), and the interval of the heartbeat presence sent while nothing else is
    /// due (`--heartbeat`). Default 900 s.
    package var heartbeat: Int = 900
    /// How long an acknowledged report is kept in memory to be published again if the connection
    /// is lost within that time (``RecentAcknowledgements``). Zero (default) for brokers whose
    /// acknowledgement means the message is stored (mosquitto); 5 s with `--broker-kind nats`,
    /// whose MQTT listener acknowledges a QoS 1 message before its JetStream streams have it, so
    /// a node killed right after loses it.
    package var acknowledgementGrace: Duration = .zero
    /// Whether the main connection keeps a persistent broker session and subscribes to its
    /// commands and receipts at QoS 1. True (default) for mosquitto, where a session costs the
    /// broker next to nothing and queues a command sent while the device is away. False with
    /// `--broker-kind nats`: there each QoS 1 subscription of a persistent session is a
    /// replicated JetStream consumer that every message and acknowledgement updates on all
    /// nodes (docs/cluster.md, "What each MQTT client costs NATS"), so the publisher connects
    /// with a clean session and subscribes at QoS 0. No report depends on it: the outbox keeps
    /// each report until its PUBACK, or its receipt, and receipts are retained, cumulative and
    /// sent again at every subscription (docs/receipts.md); a lost one costs a resend.
    package var persistentSession: Bool = true
    /// With a subscriber that confirms receipts (docs/receipts.md): how long an acknowledged report
    /// waits for its receipt before it is published again (`--receipt-timeout`). Default 30 s.
    package var receiptTimeout: Duration = .seconds(30)
    /// How long after the broker acknowledged the subscription to the receipt topic the publisher
    /// waits for a retained receipt before it decides that no subscriber confirms receipts. 1 s
    /// (mosquitto sends the retained messages right after the acknowledgement, on the same
    /// connection).
    package var receiptWait: Duration = .seconds(1)
    /// Whether the publisher stamps its reports and listens for receipts at all. Default true;
    /// false is today's "delete on PUBACK" without a stamp (benchmarks compare the two).
    package var receipts: Bool = true

    /// Creates settings; see each property for its default.
    package init(
        tid: String = "wb",
        topicBase: String = "owntracks/user/device",
        qos: QoS = .atLeastOnce,
        retain: Bool = true,
        maxSilence: Int? = nil,
        drainTimeout: Duration = .seconds(10),
        drainBatchSize: Int = 64,
        maxInFlight: Int = 20,
        publishTimeout: Duration = .seconds(10),
        retryDelay: Duration = .seconds(1)
    ) {
        self.tid = tid
        self.topicBase = topicBase
        self.qos = qos
        self.retain = retain
        self.maxSilence = maxSilence
        self.drainTimeout = drainTimeout
        self.drainBatchSize = drainBatchSize
        self.maxInFlight = maxInFlight
        self.publishTimeout = publishTimeout
        self.retryDelay = retryDelay
    }

    /// The retained presence topic, `<base>/presence`.
    var presenceTopic: String { topicBase + "/presence" }
    /// The card topic, `<base>/info`.
    var infoTopic: String { topicBase + "/info" }
    /// The waypoints topic, `<base>/waypoints` (the `waypoints` command's reply).
    var waypointsTopic: String { topicBase + "/waypoints" }
    /// The command topic, `<base>/cmd`.
    var commandTopic: String { topicBase + "/cmd" }
    /// Where subscribers publish their receipts for this device, one level per subscriber:
    /// `whereabouts/receipts/<user>/<device>` for the base `owntracks/<user>/<device>`
    /// (docs/receipts.md).
    /// The QoS of the main connection's subscriptions (commands and receipts): 1 with a
    /// persistent session, 0 without (``persistentSession``).
    var subscriptionQoS: QoS { persistentSession ? .atLeastOnce : .atMostOnce }

    var receiptTopic: String { ReceiptTopic.root + "/" + ReceiptTopic.deviceLevels(ofBase: topicBase) }

    /// The default topic base for a user and device: `owntracks/<user>/<device>`, the names exactly
    /// as given (``OwnTracksName``: the apps and the generated access control never change case).
    package static func defaultTopicBase(user: String, device: String) -> String {
        OwnTracksName.topic(user: user, device: device)
    }
}
