#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Everything an `MQTTClient` needs to reach a broker. Every field has a default, so
/// `MQTTConfiguration(port: 1883)` connects anonymously to a local broker.
public struct MQTTConfiguration: Sendable, Equatable {
    /// The MQTT protocol version spoken to the broker.
    public enum ProtocolVersion: Sendable, Equatable {
        /// MQTT 3.1.1 (every broker speaks it).
        case v311
        /// MQTT 5 (reason codes on acknowledgements, session expiry).
        case v5
    }

    /// A user name and password sent in CONNECT.
    public struct Credentials: Sendable, Equatable, CustomStringConvertible {
        /// The user name.
        public var username: String
        /// The password; never logged or printed.
        public var password: String?
        /// Creates credentials.
        public init(username: String, password: String? = nil) {
            self.username = username
            self.password = password
        }
        /// The user name only: the password is never printed.
        public var description: String { "Credentials(username: \(username), password: \(password == nil ? "none" : "***"))" }
    }

    /// The last will: a message the broker publishes for this client when it goes away
    /// without sending DISCONNECT (crash, kill, network loss).
    public struct Will: Sendable, Equatable {
        /// The topic the will is published to.
        public var topic: String
        /// The will's payload.
        public var payload: Data
        /// The QoS the will is published with.
        public var qos: QoS
        /// Whether the broker retains the will.
        public var retain: Bool
        /// Creates a will.
        public init(topic: String, payload: Data, qos: QoS = .atLeastOnce, retain: Bool = false) {
            self.topic = topic
            self.payload = payload
            self.qos = qos
            self.retain = retain
        }
    }

    /// TLS settings. Peer verification is on unless `verifyPeer` is false.
    public struct TLS: Sendable, Equatable {
        /// PEM file with the CA certificate(s) that signed the broker's certificate.
        public var caFile: String?
        /// Directory of hashed CA certificates (alternative to `caFile`).
        package var caPath: String?
        /// PEM client certificate for brokers that require one (needs `keyFile`).
        public var certificateFile: String?
        /// PEM private key of `certificateFile`.
        public var keyFile: String?
        /// Whether the broker's certificate chain must verify against the CA (keep true).
        public var verifyPeer: Bool
        /// Whether the broker's certificate must name the host connected to (keep true).
        public var verifyHostname: Bool
        /// Creates TLS settings; give at least `caFile` or `caPath`.
        public init(
            caFile: String? = nil, caPath: String? = nil, certificateFile: String? = nil,
            keyFile: String? = nil, verifyPeer: Bool = true, verifyHostname: Bool = true
        ) {
            self.caFile = caFile
            self.caPath = caPath
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.verifyPeer = verifyPeer
            self.verifyHostname = verifyHostname
        }
    }

    /// The broker's host name or address.
    public var host: String
    /// The broker's port (1883 plain, 8883 TLS by convention).
    public var port: Int
    /// Further brokers that serve the same sessions (the other nodes of a cluster), as
    /// `(host, port)`. When the current broker cannot be reached or the connection is lost, the
    /// next attempt goes to the next one in turn (``host`` first, then these, then round again),
    /// and the client stays on whichever accepts it. Empty by default: one broker.
    public var failover: [Endpoint] = []

    /// One broker to connect to.
    public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
        /// Host name or address.
        public var host: String
        /// TCP port.
        public var port: Int

        /// Creates an endpoint.
        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        /// `host:port`.
        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// Every broker this configuration may connect to, in the order they are tried: ``host`` and
    /// ``port`` first, then ``failover``.
    package var endpoints: [Endpoint] { [Endpoint(host: host, port: port)] + failover }

    /// This configuration aimed at `endpoint` (the one a connection attempt uses).
    func aimed(at endpoint: Endpoint) -> MQTTConfiguration {
        var copy = self
        copy.host = endpoint.host
        copy.port = endpoint.port
        return copy
    }
    /// The client id; empty lets the broker pick one (only with `cleanSession`).
    public var clientID: String
    /// Whether the broker forgets this client's session when it disconnects. With `false` the
    /// broker keeps its subscriptions and queues QoS>0 messages for it while it is away.
    public var cleanSession: Bool
    /// MQTT 5 only: how long the broker keeps a persistent session (`cleanSession == false`)
    /// after the client disconnected, sent as the Session Expiry Interval of CONNECT (without it
    /// an MQTT 5 session ends with the connection). The default, ``sessionNeverExpires``, keeps
    /// MQTT 3.1.1's meaning of a persistent session: kept until the client connects with a
    /// clean session (the broker may still cap it, e.g. mosquitto's `persistent_client_expiration`).
    package var sessionExpiry: Duration

    /// The session expiry that MQTT 5 reads as "never" (the largest interval, 0xFFFFFFFF s).
    public static let sessionNeverExpires = Duration.seconds(4_294_967_295)
    /// Keepalive interval: the broker drops the client after 1.5x this without traffic.
    public var keepAlive: Duration
    /// User name and password, or `nil` for anonymous access.
    public var credentials: Credentials?
    /// TLS settings, or `nil` for plain TCP.
    public var tls: TLS?
    /// The protocol version.
    public var protocolVersion: ProtocolVersion
    /// The last will, or `nil` for none.
    public var will: Will?
    /// How the client reconnects after losing the connection.
    public var reconnect: MQTTReconnectPolicy
    /// How long `connect()` waits for the broker's CONNACK, and each attempt in the background.
    public var connectTimeout: Duration
    /// Default timeout of `publish`, `subscribe` and `unsubscribe`.
    package var operationTimeout: Duration
    /// How many QoS>0 messages may await acknowledgement at once; more are queued in memory.
    public var maxInflightMessages: Int
    /// Whether a QoS 1/2 publish made while disconnected is handed to libmosquitto, which keeps
    /// it in memory and sends it after the reconnect (the publish throws
    /// `notConnected(mayStillBeDelivered: true)`). Set it to false when the caller keeps its own
    /// durable queue and republishes after reconnecting (an outbox): each retry while offline
    /// would otherwise add one more copy to libmosquitto's queue, all sent on reconnection.
    /// Messages already in flight when the connection drops are resent either way.
    public var queuesWhileDisconnected: Bool
    /// Whether the kernel may coalesce this client's small writes while messages pour in.
    /// Every write normally goes out in its own TCP segment at once (`TCP_NODELAY`: lowest
    /// latency). With this on, while at least ``burstMessagesPerMillisecond`` messages arrive per
    /// millisecond, Nagle's algorithm is switched on so that the one PUBACK per received QoS 1
    /// message is sent a segment-full at a time, which costs this client and the broker far
    /// less; when the stream slows down it is switched off again, which also sends anything
    /// held back at once. For clients that mostly receive, like the subscriber (BENCHMARKS.md,
    /// "Subscriber"). Off by default.
    public var coalescesAcknowledgementsDuringBursts: Bool

    /// The arrival rate above which ``coalescesAcknowledgementsDuringBursts`` takes effect.
    package static let burstMessagesPerMillisecond = 16

    /// Creates a configuration; every argument has a default.
    public init(
        host: String = "127.0.0.1",
        port: Int = 1883,
        clientID: String = "",
        cleanSession: Bool = true,
        sessionExpiry: Duration = MQTTConfiguration.sessionNeverExpires,
        keepAlive: Duration = .seconds(30),
        credentials: Credentials? = nil,
        tls: TLS? = nil,
        protocolVersion: ProtocolVersion = .v311,
        will: Will? = nil,
        reconnect: MQTTReconnectPolicy = MQTTReconnectPolicy(),
        connectTimeout: Duration = .seconds(10),
        operationTimeout: Duration = .seconds(30),
        maxInflightMessages: Int = 20,
        queuesWhileDisconnected: Bool = true,
        coalescesAcknowledgementsDuringBursts: Bool = false
    ) {
        self.host = host
        self.port = port
        self.clientID = clientID
        self.cleanSession = cleanSession
        self.sessionExpiry = sessionExpiry
        self.keepAlive = keepAlive
        self.credentials = credentials
        self.tls = tls
        self.protocolVersion = protocolVersion
        self.will = will
        self.reconnect = reconnect
        self.connectTimeout = connectTimeout
        self.operationTimeout = operationTimeout
        self.maxInflightMessages = maxInflightMessages
        self.queuesWhileDisconnected = queuesWhileDisconnected
        self.coalescesAcknowledgementsDuringBursts = coalescesAcknowledgementsDuringBursts
    }

    /// Checks the values that libmosquitto would reject later with a less helpful error.
    public func validate() throws(MQTTError) {
        for endpoint in endpoints {
            guard (1...65_535).contains(endpoint.port) else {
                throw .invalidArgument("port \(endpoint.port) is outside 1...65535")
            }
            guard !endpoint.host.isEmpty else { throw .invalidArgument("the broker host is empty") }
        }
        if !cleanSession && clientID.isEmpty {
            throw .invalidArgument("a persistent session (cleanSession false) needs a client id")
        }
        guard keepAlive >= .seconds(5), keepAlive <= .seconds(65_535) else {
            throw .invalidArgument("keepAlive must be between 5 s and 65535 s")
        }
        guard maxInflightMessages >= 1, maxInflightMessages <= 65_535 else {
            throw .invalidArgument("maxInflightMessages must be between 1 and 65535")
        }
        if let tls {
            guard tls.caFile != nil || tls.caPath != nil else {
                throw .invalidArgument("TLS needs a CA file or CA directory")
            }
            guard (tls.certificateFile == nil) == (tls.keyFile == nil) else {
                throw .invalidArgument("a TLS client certificate needs its key file, and a key needs its certificate")
            }
        }
        try reconnect.validate()
    }
}
