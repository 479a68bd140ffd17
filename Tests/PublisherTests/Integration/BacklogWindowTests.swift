import Foundation
import Logging
import Outbox
import Testing
import WhereaboutsCore
import WhereaboutsTestSupport

/// The real whereabouts-pub draining a large backlog with a window of publishes in flight.
@Suite("Publisher backlog window", .enabled(if: PublisherProcess.executable != nil))
struct BacklogWindowTests {
    static let topic = "owntracks/bob/tracker"

    @Test("A 3000-report backlog drains with 20 in flight: every report arrives, first arrivals in outbox order, the newest retained")
    func largeBacklog() async throws {
        let broker = try await Broker.start()
        let run = try await BacklogRun(broker: broker, user: "bob", count: 3000, arguments: ["--max-in-flight", "20", "--drain-timeout", "60"])
        let (recorder, pub, count, firstTST) = (run.recorder, run.publisher, run.count, run.firstTST)
        #expect(try await pub.waitForExit(timeout: .seconds(90)) == 0, "\(pub.log)")
        try await run.waitForEveryReport()
        let received = recorder.locations(on: Self.topic)
        var seen = Set<Int>()
        var firstArrivals: [Int] = []
        for (message, _) in received where seen.insert(message.tst).inserted { firstArrivals.append(message.tst) }
        #expect(firstArrivals == Array(firstTST..<(firstTST + count)), "each report once or more, first arrivals in outbox order")
        #expect(received.allSatisfy { ($0.message.createdAt ?? 0) > $0.message.tst }, "all of it is marked as backlog")
        #expect(try run.outboxDepth() == 0, "every acknowledged row was deleted")
        let retained = try await retainedMessage(on: Self.topic, broker: broker)
        #expect(retained.retained)
        #expect(try JSONDecoder().decode(LocationMessage.self, from: retained.payload).tst == firstTST + count - 1,
                "the retained message is the newest fix")
        await recorder.stop()
        await broker.stop()
    }
}
