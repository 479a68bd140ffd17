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
        let dir = try TestPaths.makeTemporaryDirectory(prefix: "pub-window")
        let outboxPath = dir.appendingPathComponent("o.sqlite").path
        let count = 3000
        let firstTST = 1_700_000_000
        try await BacklogRig.writeBacklog(at: outboxPath, topic: Self.topic, count: count, firstTST: firstTST)
        let track = try BacklogRig.staleTrack(in: dir)
        let recorder = try await Recorder(broker: broker)
        let pub = try PublisherProcess(arguments: [
            "--source", "gpx:\(track.path)", "--replay-speed", "max", "--user", "bob", "--device", "tracker",
            "--broker", "mqtt://\(broker.host):\(broker.port)", "--outbox", outboxPath, "--max-in-flight", "20",
            "--power-supply-path", dir.path, "--drain-timeout", "60",
        ], logFile: dir.appendingPathComponent("pub.log"))
        #expect(try await pub.waitForExit(timeout: .seconds(90)) == 0, "\(pub.log)")
        try await recorder.waitUntil("every backlog report", timeout: .seconds(30)) { messages in
            Set(messages.compactMap { try? JSONDecoder().decode(LocationMessage.self, from: $0.payload).tst }).count >= count
        }
        let received = recorder.locations(on: Self.topic)
        var seen = Set<Int>()
        var firstArrivals: [Int] = []
        for (message, _) in received where seen.insert(message.tst).inserted { firstArrivals.append(message.tst) }
        #expect(firstArrivals == Array(firstTST..<(firstTST + count)), "each report once or more, first arrivals in outbox order")
        #expect(received.allSatisfy { ($0.message.createdAt ?? 0) > $0.message.tst }, "all of it is marked as backlog")
        let left = try Outbox(path: outboxPath, logger: Logger(label: "test")).depth
        #expect(left == 0, "every acknowledged row was deleted")
        let retained = try await retainedMessage(on: Self.topic, broker: broker)
        #expect(retained.retained)
        #expect(try JSONDecoder().decode(LocationMessage.self, from: retained.payload).tst == firstTST + count - 1,
                "the retained message is the newest fix")
        await recorder.stop()
        await broker.stop()
    }
}
