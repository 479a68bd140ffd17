import Foundation
import Logging
import Testing
import WhereaboutsMQTT
import WhereaboutsTestSupport

@Suite("Load and lifetime")
struct LoadTests {
    @Test("10,000 QoS 1 publishes are all acknowledged and arrive exactly once")
    func tenThousand() async throws {
        let count = 10_000
        let broker = try await Broker.start()
        let subscriber = broker.client("load-sub") { $0.maxInflightMessages = 100 }
        let publisher = broker.client("load-pub") { $0.maxInflightMessages = 100 }
        try await subscriber.connect()
        try await publisher.connect()
        let messages = subscriber.messages
        try await subscriber.subscribe(to: "load/#", qos: .atLeastOnce)

        // What is asserted is that every message arrives once, not how fast: a fresh-clone CI run
        // with the whole suite on two cores did not have them all within 60 s.
        let received = Task { try await messages.collect(count, timeout: .seconds(180)) }
        // Up to 200 publishes in flight at once, each awaiting its own PUBACK.
        let acknowledged = try await withThrowingTaskGroup(of: Int.self) { group in
            var next = 0, done = 0
            while next < min(200, count) {
                let n = next
                group.addTask { try await publisher.publish(to: "load/t", payload: "\(n)", qos: .atLeastOnce); return n }
                next += 1
            }
            while try await group.next() != nil {
                done += 1
                if next < count {
                    let n = next
                    group.addTask { try await publisher.publish(to: "load/t", payload: "\(n)", qos: .atLeastOnce); return n }
                    next += 1
                }
            }
            return done
        }
        #expect(acknowledged == count)
        let payloads = try await received.value.compactMap { $0.payloadString.flatMap(Int.init) }
        #expect(payloads.count == count)
        #expect(Set(payloads).count == count, "duplicates at the subscriber")
        #expect(Set(payloads) == Set(0..<count), "messages lost")
        await publisher.disconnect()
        await subscriber.disconnect()
        await broker.stop()
    }

    @Test("A connected client released from another task while messages flow does not crash")
    func releaseWhileBusy() async throws {
        let broker = try await Broker.start()
        let sender = broker.client("sender")
        try await sender.connect()
        for round in 0..<5 {
            var client: MQTTClient? = MQTTClient(
                configuration: broker.clientConfiguration(clientID: "doomed-\(round)"), logger: .test())
            try await client!.connect()
            try await client!.subscribe(to: "busy/#", qos: .atLeastOnce)
            let messages = client!.messages
            // Messages flow in both directions while the last reference is dropped elsewhere.
            let flood = Task {
                for n in 0..<1_000 { try? await sender.publish(to: "busy/\(n % 7)", payload: "\(n)", qos: .atMostOnce) }
            }
            // Holds the client only weakly: each publish in flight keeps it alive while it runs.
            let ownPublishes = Task { [weak own = client] in
                for n in 0..<100 { try? await own?.publish(to: "busy/own", payload: "\(n)", qos: .atLeastOnce, timeout: .seconds(2)) }
            }
            let drain = Task { for await _ in messages {} }
            try await Task.sleep(for: .milliseconds(20))  // let traffic build up; not a synchronisation
            await Task.detached { client = nil }.value
            await flood.value
            await ownPublishes.value
            // The released client's message sequence ends instead of hanging.
            try await withTimeout(.seconds(10), "the released client's messages to end") { await drain.value }
        }
        // The broker saw each released client leave: "disconnected." after its DISCONNECT, or
        // "disconnected: Broken pipe." when the client's close, with flood messages still unread,
        // reset the connection under a write of the broker (TCP sends RST then). Never "closed
        // its connection", which would mean the release sent no DISCONNECT at all.
        try await waitUntil("the broker to see the released clients disconnect") {
            let log = (try? String(contentsOf: broker.logFile, encoding: .utf8)) ?? ""
            return (0..<5).allSatisfy { log.contains("Client doomed-\($0) disconnected") }
        }
        let log = try String(contentsOf: broker.logFile, encoding: .utf8)
        #expect(!log.contains(#/Client doomed-\d closed its connection/#))
        await sender.disconnect()
        await broker.stop()
    }

    @Test("Cancelling a waiting publish ends it promptly with CancellationError")
    func cancellation() async throws {
        let broker = try await Broker.start()
        let client = broker.client("cancel")
        try await client.connect()
        await broker.pause()
        let publish = Task { try await client.publish(to: "c", payload: "x", qos: .atLeastOnce, timeout: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(50))  // let it reach the waiting state; either state is fine
        publish.cancel()
        let result = try await withTimeout(.seconds(5), "the cancelled publish") { await publish.result }
        #expect(throws: CancellationError.self) { try result.get() }
        await broker.resume()
        await client.disconnect()
        await broker.stop()
    }
}
