import Foundation
import SystemSupport
import WhereaboutsTestSupport

/// The subscribers' JetStream consumers on `$MQTT_msgs` (one per QoS 1 subscription of each
/// persistent session), read from every node's `/jsz` once a second while the run lasts, each
/// consumer from the node that leads it: how many messages it delivered (deliveries, a
/// redelivery counted again) and had acknowledged by the end, the most
/// messages delivered and not yet acknowledged (`num_ack_pending`, against the consumer's
/// `max_ack_pending`, beyond which NATS delivers nothing more to it) and the most waiting for
/// redelivery (`num_redelivered`, after `ack_wait` without an acknowledgement) seen at once. Tells
/// whether a report could have waited behind a full window or for a redelivery.
final class ConsumerWatch: Sendable {
    private struct Seen {
        var filter = ""
        var maxAckPendingSetting = 0
        var ackWaitSeconds = 0.0
        var mostAckPending = 0
        var mostRedelivered = 0
        var mostPending = 0
        var samples = 0
        var delivered = 0
        var acknowledged = 0
    }
    private struct State {
        var consumers: [String: Seen] = [:]
        var task: Task<Void, Never>?
        var failures = 0
    }
    private let state = LockedState(State())
    private let ports: [Int]

    /// `httpPorts`: the nodes' monitoring ports, node-1 first.
    init(httpPorts: [Int]) {
        self.ports = httpPorts
    }

    func start() {
        let task = Task.detached { [self] in
            while !Task.isCancelled {
                for (index, port) in ports.enumerated() { await sample(port: port, node: "node-\(index + 1)") }
                try? await Task.sleep(for: .seconds(1))
            }
        }
        state.withLock { $0.task = task }
    }

    func stop() { state.withLock { $0.task }?.cancel() }

    private func sample(port: Int, node: String) async {
        struct Answer: Decodable {
            struct Account: Decodable { var stream_detail: [Stream]? }
            struct Stream: Decodable { var name: String; var consumer_detail: [Consumer]? }
            struct Consumer: Decodable {
                struct Config: Decodable { var filter_subject: String?; var max_ack_pending: Int?; var ack_wait: Double? }
                struct Cluster: Decodable { var leader: String? }
                struct Sequences: Decodable { var consumer_seq: Int? }
                var name: String
                var config: Config?
                var cluster: Cluster?
                var delivered: Sequences?
                var ack_floor: Sequences?
                var num_ack_pending: Int?
                var num_redelivered: Int?
                var num_pending: Int?
            }
            var account_details: [Account]?
        }
        guard let answer = try? await RawHTTP.send(port: port, [
            "GET /jsz?accounts=true&streams=true&consumers=true&config=true HTTP/1.0", "Host: 127.0.0.1",
        ]), let decoded = try? JSONDecoder().decode(Answer.self, from: Data(answer.body.utf8)) else {
            state.withLock { $0.failures += 1 }
            return
        }
        state.withLock { state in
            for account in decoded.account_details ?? [] {
                for stream in account.stream_detail ?? [] where stream.name == "$MQTT_msgs" {
                    for consumer in stream.consumer_detail ?? [] where consumer.cluster?.leader == node {
                        var seen = state.consumers[consumer.name] ?? Seen()
                        seen.filter = consumer.config?.filter_subject ?? "?"
                        seen.maxAckPendingSetting = consumer.config?.max_ack_pending ?? 0
                        seen.ackWaitSeconds = (consumer.config?.ack_wait ?? 0) / 1e9
                        seen.mostAckPending = max(seen.mostAckPending, consumer.num_ack_pending ?? 0)
                        seen.mostRedelivered = max(seen.mostRedelivered, consumer.num_redelivered ?? 0)
                        seen.mostPending = max(seen.mostPending, consumer.num_pending ?? 0)
                        seen.samples += 1
                        seen.delivered = consumer.delivered?.consumer_seq ?? seen.delivered
                        seen.acknowledged = consumer.ack_floor?.consumer_seq ?? seen.acknowledged
                        state.consumers[consumer.name] = seen
                    }
                }
            }
        }
    }

    /// One line: each consumer's filter and what was seen at most.
    var summary: String {
        state.withLock { state in
            state.consumers.values.sorted { $0.filter < $1.filter }.map { seen in
                String(format: "%@: delivered %d, acknowledged %d, ack pending at most %d of %d, redelivered at most %d, pending at most %d, ack_wait %.0f s (%d samples from its leader)",
                       seen.filter, seen.delivered, seen.acknowledged, seen.mostAckPending, seen.maxAckPendingSetting, seen.mostRedelivered, seen.mostPending,
                       seen.ackWaitSeconds, seen.samples)
            }.joined(separator: "; ") + (state.failures > 0 ? "; \(state.failures) samples unanswered" : "")
        }
    }
}
