import Foundation
import Logging
import SystemSupport
import WhereaboutsMQTT

/// The subscriber's connection to the broker, with what it publishes (views, events, receipts,
/// OwnTracks trees) optionally spread over more connections of its own.
///
/// On NATS (`--broker-kind nats`) a node handles one connection's packets one after another, and
/// a retained message is a replicated JetStream store that it makes before it reads the
/// connection's next packet: measured on the local cluster, one connection's retained QoS 1
/// messages went through at about 430 a second with nothing else to do. A subscriber shard
/// publishes a retained receipt per device report and a retained view per changed circle, on
/// top of the PUBACKs it sends on the same connection for every report; at 10,000 devices its
/// views fell seconds behind (docs/cluster.md). So on NATS it publishes over one more clean
/// session per node, `<client id>-publish-<n>`, each starting at a different node of the
/// `--broker` list; every topic always goes over the same one, so the messages of one topic
/// keep their order. Subscriptions, received messages and their PUBACKs stay on the main
/// connection, whose persistent session is the subscriber's.
///
/// With no extra connections (mosquitto, the default) everything goes over the main connection.
final class PublishingConnections: BrokerConnection {
    private let main: MQTTClient
    private let publishers: [MQTTClient]

    /// `main` is the subscriber's client; `publishers` (not yet started) carry what it publishes.
    init(main: MQTTClient, publishers: [MQTTClient]) {
        self.main = main
        self.publishers = publishers
    }

    /// The extra publishing clients for `configuration` (the main connection's): one clean
    /// session per broker endpoint, the n-th starting at the n-th endpoint.
    static func publishers(for configuration: MQTTConfiguration, logger: Logger) -> [MQTTClient] {
        let endpoints = [MQTTConfiguration.Endpoint(host: configuration.host, port: configuration.port)] + configuration.failover
        return endpoints.indices.map { first in
            var publisher = configuration
            let order = endpoints[first...] + endpoints[..<first]
            publisher.host = order[order.startIndex].host
            publisher.port = order[order.startIndex].port
            publisher.failover = Array(order.dropFirst())
            publisher.clientID = configuration.clientID + "-publish-\(first + 1)"
            publisher.cleanSession = true
            publisher.will = nil
            publisher.coalescesAcknowledgementsDuringBursts = false
            return MQTTClient(configuration: publisher, logger: logger)
        }
    }

    /// Starts the publishing connections (each retries in the background until its broker answers).
    func start() throws {
        for publisher in publishers { try publisher.start() }
    }

    /// Disconnects the publishing connections (the main one is its owner's).
    func disconnect() async {
        for publisher in publishers { await publisher.disconnect() }
    }

    /// Runs until cancelled, calling `body` each time a publishing connection is back after
    /// losing its connection. NATS acknowledges a QoS 1 PUBLISH before its streams store it
    /// (docs/cluster.md), so a retained view that the node which died had acknowledged may be
    /// gone from the cluster; the caller publishes its views again. Without extra connections
    /// (mosquitto) it returns at once.
    func whenPublishingReconnects(_ body: @escaping @Sendable () async -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            for publisher in publishers {
                let updates = publisher.stateUpdates
                group.addTask {
                    var wasConnected = false, lost = false
                    for await state in updates {
                        switch state {
                        case .connected:
                            if lost { await body() }
                            wasConnected = true
                            lost = false
                        case .reconnecting, .disconnected:
                            lost = wasConnected
                        case .connecting:
                            break
                        }
                    }
                }
            }
        }
    }

    var messages: MQTTMessages { main.messages }

    func publish(to topic: String, payload: Data, qos: QoS, retain: Bool, timeout: Duration?) async throws {
        guard !publishers.isEmpty else {
            return try await main.publish(to: topic, payload: payload, qos: qos, retain: retain, timeout: timeout)
        }
        try await publishers[Self.index(of: topic, among: publishers.count)].publish(
            to: topic, payload: payload, qos: qos, retain: retain, timeout: timeout)
    }

    /// The publishing connection of `topic`: always the same one (FNV-1a of its bytes), so that
    /// one topic's messages keep their order.
    static func index(of topic: String, among count: Int) -> Int {
        Int(FNV1a.hash(topic.utf8) % UInt64(count))
    }

    func subscribe(to filters: [String], qos: QoS, timeout: Duration?) async throws {
        try await main.subscribe(to: filters, qos: qos, timeout: timeout)
    }

    func unsubscribe(from filters: [String], timeout: Duration?) async throws {
        try await main.unsubscribe(from: filters, timeout: timeout)
    }

    func connectedSince() async -> Date? { await main.connectedSince() }

    func waitUntilConnected(timeout: Duration) async -> Bool { await main.waitUntilConnected(timeout: timeout) }

    func takeFreshSession() async -> Bool { await main.takeFreshSession() }
}
