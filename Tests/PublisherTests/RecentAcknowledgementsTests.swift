import Foundation
import Outbox
@testable import Publisher
import Testing

@Suite("Reports held after their acknowledgement")
struct RecentAcknowledgementsTests {
    func entry(_ id: Int64) -> OutboxEntry {
        OutboxEntry(id: id, topic: "owntracks/a/p", payload: Data("{}".utf8), tst: 1_700_000_000 + Int(id), createdAt: Date())
    }

    @Test("Held reports are due again on another connection, released after the grace on the same one")
    func rules() {
        let start = ContinuousClock.now
        let first = Date(timeIntervalSince1970: 100), second = Date(timeIntervalSince1970: 200)
        var recent = RecentAcknowledgements(grace: .seconds(5))
        recent.record([entry(1), entry(2)], at: start, connection: first)
        #expect(recent.due(connection: first, now: start + .seconds(1)).isEmpty)
        #expect(recent.due(connection: second, now: start + .seconds(2)).map(\.id) == [1, 2])
        recent.republished(on: second, at: start + .seconds(2))
        #expect(recent.due(connection: second, now: start + .seconds(6)).isEmpty)
        #expect(!recent.isEmpty, "held until 5 s after the republish")
        #expect(recent.due(connection: second, now: start + .seconds(7)).isEmpty)
        #expect(recent.isEmpty)
    }

    @Test("A zero grace holds nothing; the limit drops the oldest")
    func limits() {
        let now = ContinuousClock.now
        var none = RecentAcknowledgements(grace: .zero)
        none.record([entry(1)], at: now, connection: Date())
        #expect(none.isEmpty)
        var small = RecentAcknowledgements(grace: .seconds(5), limit: 2)
        let connection = Date(timeIntervalSince1970: 1)
        small.record([entry(1), entry(2), entry(3)], at: now, connection: connection)
        #expect(small.due(connection: Date(timeIntervalSince1970: 2), now: now).map(\.id) == [2, 3])
    }
}
