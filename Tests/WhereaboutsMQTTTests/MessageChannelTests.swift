import Foundation
import Testing
import WhereaboutsTestSupport
@testable import WhereaboutsMQTT

/// The channel between libmosquitto's thread and `messages` consumers, alone (the hub fed from
/// another thread, as libmosquitto's callback feeds it) and through a real broker.
@Suite("Message channel")
struct MessageChannelTests {
    private static func message(_ n: Int) -> MQTTMessage {
        MQTTMessage(topic: "t/\(n % 7)", payload: Data("\(n)".utf8), qos: .atLeastOnce)
    }

    private static func numbers(_ messages: [MQTTMessage]) -> [Int] {
        messages.compactMap { $0.payloadString.flatMap(Int.init) }
    }

    /// Publishes "0" to "`count - 1`" at QoS 1 on `topic`, up to 1000 awaiting their PUBACK at once.
    private static func publishNumbers(_ count: Int, to topic: String, with publisher: MQTTClient) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<count {
                if n >= 1000 { try await group.next() }
                group.addTask { try await publisher.publish(to: topic, payload: "\(n)", qos: .atLeastOnce, timeout: .seconds(120)) }
            }
            try await group.waitForAll()
        }
    }

    /// Delivers `range` from a thread outside the Swift concurrency pool, as libmosquitto's
    /// thread does: waking consumers every 50 messages and at the end, in chunks separated by
    /// short pauses so that the consumer drains several batches and waits in between.
    private static func deliverFromThread(_ hub: ClientHub, _ range: Range<Int>, chunk: Int) {
        let thread = Thread {
            for n in range {
                hub.deliver(message(n))
                if n % 50 == 49 { hub.wakeMessageConsumers() }
                if n % chunk == chunk - 1 { usleep(200) }
            }
            hub.wakeMessageConsumers()
        }
        thread.start()
    }

    /// Delivers one message and wakes its consumers.
    private static func deliver(_ hub: ClientHub, _ n: Int) {
        hub.deliver(message(n))
        hub.wakeMessageConsumers()
    }

    /// Delivers `count` messages from another thread while one sequence drains them, and
    /// returns what it received.
    private static func drainWhileDelivering(_ count: Int, chunk: Int) async throws -> [Int] {
        let hub = ClientHub()
        let messages = MQTTMessages(registration: hub.makeMessageChannel())
        deliverFromThread(hub, 0..<count, chunk: chunk)
        return numbers(try await messages.collect(count, timeout: .seconds(120)))
    }

    @Test("Messages keep their arrival order across many batches")
    func orderAcrossBatches() async throws {
        #expect(try await Self.drainWhileDelivering(20_000, chunk: 300) == Array(0..<20_000))
    }

    @Test("No message is lost in a 100,000-message burst delivered while the consumer drains")
    func burstInMemory() async throws {
        #expect(try await Self.drainWhileDelivering(100_000, chunk: 10_000) == Array(0..<100_000))
    }

    @Test("A new iterator continues where a previous iterator of the same sequence stopped")
    func iteratorLeftWithBreak() async throws {
        let hub = ClientHub()
        let messages = MQTTMessages(registration: hub.makeMessageChannel())
        for n in 0..<10 { Self.deliver(hub, n) }
        // The first iterator takes all ten in one batch but returns only three.
        let first = try await messages.collect(3)
        for n in 10..<12 { Self.deliver(hub, n) }
        let rest = try await messages.collect(9)
        #expect(Self.numbers(first) == [0, 1, 2])
        #expect(Self.numbers(rest) == Array(3..<12))
    }

    @Test("Every sequence made from the hub gets every message")
    func everySequenceGetsEverything() async throws {
        let hub = ClientHub()
        let sequences = (0..<3).map { _ in MQTTMessages(registration: hub.makeMessageChannel()) }
        Self.deliverFromThread(hub, 0..<5_000, chunk: 500)
        for sequence in sequences {
            let received = try await sequence.collect(5_000, timeout: .seconds(30))
            #expect(Self.numbers(received) == Array(0..<5_000))
        }
    }

    @Test("Cancelling a task waiting in next() makes it return nil and leaves no waiter behind")
    func cancelWaitingNext() async throws {
        let hub = ClientHub()
        let registration = hub.makeMessageChannel()
        let messages = MQTTMessages(registration: registration)
        let waiting = Task { () -> MQTTMessage? in
            var iterator = messages.makeAsyncIterator()
            return await iterator.next()
        }
        try await waitUntil("next() to wait", timeout: .seconds(10)) { registration.channel.waiterCount == 1 }
        waiting.cancel()
        let result = try await withTimeout(.seconds(10), "the cancelled next() to return") { await waiting.value }
        #expect(result == nil)
        #expect(registration.channel.waiterCount == 0)
        // The sequence itself still works for a new iterator.
        Self.deliver(hub, 1)
        #expect(Self.numbers([try await messages.next()]) == [1])
    }

    @Test("A task cancelled before it calls next() gets nil at once when nothing is buffered")
    func cancelledBeforeNext() async throws {
        let hub = ClientHub()
        let messages = MQTTMessages(registration: hub.makeMessageChannel())
        let result = try await withTimeout(.seconds(10), "next() in a cancelled task") {
            withUnsafeCurrentTask { $0?.cancel() }
            var iterator = messages.makeAsyncIterator()
            return await iterator.next()
        }
        #expect(result == nil)
    }

    @Test("Ending the streams delivers what is buffered, then nil, also to a waiting iterator")
    func finishDeliversBufferedThenEnds() async throws {
        let hub = ClientHub()
        let buffered = MQTTMessages(registration: hub.makeMessageChannel())
        let registration = hub.makeMessageChannel()
        let waitingSequence = MQTTMessages(registration: registration)
        let waiting = Task { () -> Int in
            var count = 0
            for await _ in waitingSequence { count += 1 }
            return count
        }
        hub.deliver(Self.message(1))
        hub.deliver(Self.message(2))
        hub.finishMessageStreams()  // wakes the waiting iterator without wakeMessageConsumers()
        Self.deliver(hub, 3)  // after the end: nobody gets it
        var all: [MQTTMessage] = []
        for await message in buffered { all.append(message) }
        #expect(Self.numbers(all) == [1, 2])
        let count = try await withTimeout(.seconds(10), "the waiting iterator to end") { await waiting.value }
        #expect(count == 2)
    }

    @Test("A sequence nobody holds any more is unregistered from the hub")
    func releasedSequenceUnregisters() async throws {
        let hub = ClientHub()
        do {
            let messages = MQTTMessages(registration: hub.makeMessageChannel())
            Self.deliver(hub, 1)
            _ = try await messages.next()
            #expect(hub.messageChannelCount == 1)
        }
        // The last copy goes when the helper's child task is destroyed.
        try await waitUntil("the sequence to be unregistered", timeout: .seconds(10)) { hub.messageChannelCount == 0 }
        #expect(hub.messageChannelCount == 0)
    }

    @Test("Through a broker: two sequences each get a 100,000-message QoS 1 burst, none lost, in the same order")
    func burstThroughBroker() async throws {
        let count = 100_000
        let broker = try await Broker.start()
        let subscriber = broker.client("channel-sub")
        let publisher = broker.client("channel-pub") { $0.maxInflightMessages = 1000 }
        try await subscriber.connect()
        try await publisher.connect()
        let first = subscriber.messages
        let second = subscriber.messages
        try await subscriber.subscribe(to: "burst/#", qos: .atLeastOnce)
        let receivedFirst = Task { try await first.collect(count, timeout: .seconds(300)) }
        let receivedSecond = Task { try await second.collect(count, timeout: .seconds(300)) }
        // Up to 1000 publishes await their PUBACK at once (so their order on the wire is the
        // order the tasks reach libmosquitto: both sequences must see that same order).
        try await Self.publishNumbers(count, to: "burst/t", with: publisher)
        let firstNumbers = Self.numbers(try await receivedFirst.value)
        let secondNumbers = Self.numbers(try await receivedSecond.value)
        #expect(firstNumbers.count == count)
        #expect(Set(firstNumbers) == Set(0..<count), "messages lost or duplicated")
        #expect(firstNumbers == secondNumbers, "the two sequences saw different orders")
        await publisher.disconnect()
        await subscriber.disconnect()
        await broker.stop()
    }

    @Test("Coalescing acknowledgements during a burst loses nothing, and is off again once the burst is over")
    func coalescedAcknowledgements() async throws {
        let count = 20_000
        let broker = try await Broker.start()
        let subscriber = broker.client("coalescing-sub") { $0.coalescesAcknowledgementsDuringBursts = true }
        let publisher = broker.client("coalescing-pub") { $0.maxInflightMessages = 1000 }
        try await subscriber.connect()
        try await publisher.connect()
        let messages = subscriber.messages
        try await subscriber.subscribe(to: "coalesce/#", qos: .atLeastOnce)
        let received = Task { try await messages.collect(count, timeout: .seconds(120)) }
        let start = ContinuousClock.now
        try await Self.publishNumbers(count, to: "coalesce/t", with: publisher)
        let numbers = Self.numbers(try await received.value)
        let rate = Double(count) / ((ContinuousClock.now - start) / .milliseconds(1))
        #expect(Set(numbers) == Set(0..<count), "messages lost or duplicated")
        // Whether a burst was detected depends on how fast this machine delivered it; when it
        // came in well above the threshold it must have been.
        if rate >= 3 * Double(MQTTConfiguration.burstMessagesPerMillisecond) {
            #expect(subscriber.acknowledgementCoalescing.periods >= 1, "\(Int(rate)) messages/ms and no coalescing")
        }
        // Once the stream stops, TCP_NODELAY is back (within a loop pass of about 100 ms), so the
        // client's own writes go out at once again; and the client still works both ways.
        try await waitUntil("coalescing switched off after the burst") { !subscriber.acknowledgementCoalescing.isOn }
        let after = subscriber.messages
        for n in 0..<5 {
            try await publisher.publish(to: "coalesce/one", payload: "\(n)", qos: .atLeastOnce, timeout: .seconds(10))
            #expect(try await after.next(timeout: .seconds(10)).payloadString == "\(n)")
            try await subscriber.publish(to: "elsewhere/after", payload: "\(n)", qos: .atLeastOnce, timeout: .seconds(10))
        }
        await publisher.disconnect()
        await subscriber.disconnect()
        await broker.stop()
    }

    @Test("The coalescing rule: on for a window of 16 or more messages per millisecond, off below, nothing decided within a millisecond")
    func coalescingRule() {
        let t0 = ContinuousClock.now
        var rule = AcknowledgementCoalescing(threshold: 16, now: t0, delivered: 0)
        #expect(rule.update(now: t0 + .microseconds(500), delivered: { 100 }) == nil, "a window lasts at least 1 ms")
        #expect(rule.update(now: t0 + .milliseconds(2), delivered: { 40 }) == true, "20 per ms is a burst")
        #expect(rule.isOn)
        #expect(rule.update(now: t0 + .milliseconds(3), delivered: { 60 }) == nil, "still a burst: no change")
        #expect(rule.update(now: t0 + .milliseconds(4), delivered: { 70 }) == false, "10 per ms is not")
        #expect(!rule.isOn)
        #expect(rule.update(now: t0 + .milliseconds(104), delivered: { 70 }) == nil, "idle stays off")
        #expect(rule.update(now: t0 + .milliseconds(105), delivered: { 86 }) == true)
        #expect(rule.update(now: t0 + .milliseconds(205), delivered: { 86 }) == false, "a long idle window ends the burst")
    }

    @Test("Through a broker: a waiting iteration ends after disconnect()")
    func endsOnDisconnect() async throws {
        let broker = try await Broker.start()
        let client = broker.client("channel-end")
        try await client.connect()
        let messages = client.messages
        try await client.subscribe(to: "end/#", qos: .atLeastOnce)
        try await client.publish(to: "end/t", payload: "one", qos: .atLeastOnce)
        let iteration = Task { () -> [String] in
            var payloads: [String] = []
            for await message in messages { payloads.append(message.payloadString ?? "") }
            return payloads
        }
        try await waitUntil("the message to be taken", timeout: .seconds(10)) {
            messages.registration.channel.bufferedCount == 0 && messages.registration.channel.waiterCount == 1
        }
        await client.disconnect()
        let payloads = try await withTimeout(.seconds(10), "the sequence to end") { await iteration.value }
        #expect(payloads == ["one"])
        await broker.stop()
    }
}
