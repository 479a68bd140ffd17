import Foundation
import NIOCore

/// One simulated device that behaves like `whereabouts-pub` towards the broker: when its
/// connection is lost it connects to the next node and publishes again what was not acknowledged,
/// and, like `--broker-kind nats`, what was acknowledged in the last 5 s (NATS acknowledges
/// before storing; docs/cluster.md).
final class LoadDevice: @unchecked Sendable {  // all state is touched on `loop` only
    let index: Int
    let topic: String
    private let clientID: String
    private let ports: [Int]
    private let group: EventLoopGroup
    private let loop: EventLoop
    private let ledger: Ledger
    private var portIndex: Int
    private var client: MQTTLoadClient?
    private var unacknowledged: [Int: String] = [:]
    private var held: [(tst: Int, payload: String, at: ContinuousClock.Instant)] = []
    private var stopped = false
    static let grace: Duration = .seconds(5)

    init(index: Int, user: String, ports: [Int], group: EventLoopGroup, ledger: Ledger) {
        self.index = index
        self.topic = "owntracks/\(user)/p"
        self.clientID = "load-\(user)-p"
        self.ports = ports
        self.group = group
        self.loop = group.next()
        self.ledger = ledger
        self.portIndex = index % ports.count
    }

    /// Makes the first connection.
    func start() async throws {
        let client = try await MQTTLoadClient.connect(
            host: "127.0.0.1", port: ports[portIndex], clientID: clientID, credentials: nil, group: group)
        loop.execute { self.adopt(client) }
    }

    /// Publishes one report (on the device's event loop).
    func publish(tst: Int, payload: String) {
        loop.execute { [self] in
            unacknowledged[tst] = payload
            send(tst: tst, payload: payload)
        }
    }

    /// Stops reconnecting and closes the connection.
    func stop() async {
        let client: MQTTLoadClient? = try? await loop.submit { [self] in
            stopped = true
            return self.client
        }.get()
        await client?.close()
    }

    private func adopt(_ client: MQTTLoadClient) {
        self.client = client
        client.onClose = { [self] in loop.execute { self.connectionLost() } }
    }

    private func send(tst: Int, payload: String) {
        client?.publish(topic: topic, payload: payload, retain: true) { [self] at in
            loop.execute { [self] in
                guard unacknowledged.removeValue(forKey: tst) != nil else { return }
                ledger.acknowledged(index, tst: tst)
                held.append((tst, payload, at))
                held.removeAll { at - $0.at > Self.grace }
            }
        }
    }

    private func connectionLost() {
        client = nil
        guard !stopped else { return }
        portIndex = (portIndex + 1) % ports.count
        let port = ports[portIndex]
        loop.scheduleTask(in: .milliseconds(500)) { [self] in
            Task {
                do {
                    let client = try await MQTTLoadClient.connect(host: "127.0.0.1", port: port, clientID: clientID, credentials: nil, group: group)
                    loop.execute { [self] in
                        adopt(client)
                        // What a dying node may have acknowledged without storing, then what it never acknowledged.
                        let now = ContinuousClock.now
                        for report in held where now - report.at <= Self.grace { send(tst: report.tst, payload: report.payload) }
                        for tst in unacknowledged.keys.sorted() { send(tst: tst, payload: unacknowledged[tst]!) }
                    }
                } catch {
                    loop.execute { self.connectionLost() }
                }
            }
        }
    }
}
