import Subscriber
import Foundation
import Logging
import WhereaboutsCore
import WhereaboutsMQTT

/// The subscriber's real view store, fed the way ingest feeds it (``CircleViewStore/apply``
/// with decoded messages, then ``CircleViewStore/collectDue`` as the view publisher does).
enum Fixtures {
    static let alice = Member(user: "alice", device: "phone", name: "Alice", color: "#e6194b")
    static let bob = Member(user: "bob", device: "car", name: "Bob", color: "#3cb44b")
    static let carol = Member(user: "carol", device: "phone", name: "Carol", color: "#4363d8")
    static let dave = Member(user: "dave", device: "phone", name: "Dave", color: "#f58231")
    static let erin = Member(user: "erin", device: "van", name: "Erin", color: "#911eb4")

    /// Family (Alice, Bob, Carol, Dave) and Field team (Alice, Erin): Alice is in both.
    static let circles = CirclesFile(circles: [
        Circle(id: "family", name: "Family", members: [alice, bob, carol, dave]),
        Circle(id: "team", name: "Field team", members: [alice, erin]),
    ])

    /// Alice's first position (Limerick).
    static let aliceStart = (lat: 52.663800, lon: -8.626700)

    /// A store where, at `now`: Alice is online with a short trail, Bob stale (last fix 700 s
    /// ago, timeout 300 s), Carol offline (last will), Dave never heard, Erin online and moving
    /// east-north-east at (8, 2) m/s.
    static func store(now: Date = Date()) async -> CircleViewStore {
        var logger = Logger(label: "DashboardTests")
        logger.logLevel = .warning
        let store = CircleViewStore(circles: circles, viewInterval: 0, logger: logger)
        let t = Int(now.timeIntervalSince1970)
        for (age, lat, lon) in [(60, 52.6610, -8.6330), (40, 52.6620, -8.6310), (20, 52.6630, -8.6290)] {
            await store.apply(.location(location("al", tst: t - age, lat: lat, lon: lon)), from: alice.id, retained: false, at: now)
        }
        await store.apply(.location(location("al", tst: t - 3, lat: aliceStart.lat, lon: aliceStart.lon)), from: alice.id, retained: false, at: now)
        // Retained: an old fix that arrives live is backlog (trail only) and would leave Bob `unknown`.
        await store.apply(.location(location("bo", tst: t - 700, lat: 52.6680, lon: -8.6200)), from: bob.id, retained: true, at: now)
        await store.apply(.location(location("ca", tst: t - 4000, lat: 52.6600, lon: -8.6180)), from: carol.id, retained: false, at: now)
        await store.apply(.lastWill(tst: t - 5000), from: carol.id, retained: false, at: now)
        await store.apply(.location(location("er", tst: t - 1, lat: 52.6700, lon: -8.6400, ve: 8, vn: 2, ms: 60)), from: erin.id, retained: false, at: now)
        _ = await store.collectDue(at: now)
        return store
    }

    /// A location message as a publisher sends it.
    static func location(
        _ tid: String, tst: Int, lat: Double, lon: Double,
        ve: Double? = nil, vn: Double? = nil, ms: Int? = nil
    ) -> LocationMessage {
        LocationMessage(tid: tid, tst: tst, lat: lat, lon: lon, acc: 8, batt: 76, t: "t", ve: ve, vn: vn, ms: ms)
    }

    /// Publishes a new fix for `member` the way it reaches the subscriber: an OwnTracks JSON
    /// payload on `owntracks/<user>/<device>` through the subscriber's `Ingestor` (topic routing,
    /// decoding, validation), then collects the changed views as the view publisher does, which
    /// pushes them to every `updates()` subscriber.
    @discardableResult
    static func move(
        _ member: Member, in store: CircleViewStore, to lat: Double, _ lon: Double,
        tst: Int = Int(Date().timeIntervalSince1970), ve: Double? = nil, vn: Double? = nil, ms: Int? = nil
    ) async throws -> CircleViewStore.ApplyOutcome? {
        let message = location(String(member.user.prefix(2)), tst: tst, lat: lat, lon: lon, ve: ve, vn: vn, ms: ms)
        let payload = try JSONEncoder().encode(message)
        let ingestor = Ingestor(store: store, router: TopicRouter(), settings: await store.settings)
        let outcome = await ingestor.handle(
            MQTTMessage(topic: "owntracks/\(member.user)/\(member.device)", payload: payload, retained: false)
        )
        _ = await store.collectDue()
        return outcome
    }
}
