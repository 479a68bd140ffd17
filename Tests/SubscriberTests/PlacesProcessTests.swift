@testable import Subscriber
import Foundation
import Testing
@testable import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// Places end to end: the real `whereabouts-sub` process, a real mosquitto, a member publishing
/// OwnTracks fixes and an Android region transition, and a probe reading the circle's events
/// and view as a dashboard would.
@Suite("Places through the whereabouts-sub process")
struct PlacesProcessTests {
    static let executable = TestPaths.builtExecutable(named: "whereabouts-sub")
    static let home = Coordinate(latitude: 52.6638, longitude: -8.6267)

    static let circles = """
        circles:
          - id: family
            members:
              - {user: alice, device: phone, name: Alice}
            places:
              - {name: Home, lat: 52.6638, lon: -8.6267, radius: 100}
        """

    static func location(_ position: Coordinate, tst: Int) -> Data {
        Data(#"{"_type":"location","acc":5,"lat":\#(position.latitude),"lon":\#(position.longitude),"tid":"al","tst":\#(tst),"t":"u"}"#.utf8)
    }

    @Test("Arrival after the dwell time in silence, no flapping at the edge, departure, and the app's own transition",
          .enabled(if: executable != nil))
    func arriveHoverLeave() async throws {
        let broker = try await Broker.start()
        let directory = try TestPaths.makeTemporaryDirectory()
        let circlesPath = directory.appendingPathComponent("circles.yaml")
        try Self.circles.write(to: circlesPath, atomically: true, encoding: .utf8)
        let log = directory.appendingPathComponent("sub.log")
        let probe = try await ViewProbe.start(broker: broker)
        let child = try ChildProcess.spawn(
            Self.executable!.path,
            ["--circles", circlesPath.path, "--broker", "mqtt://\(broker.host):\(broker.port)", "--client-id", "sub-places",
             "--view-interval", "0.1", "--place-dwell", "2", "--place-margin", "25", "--state-file", "none"],
            logFile: log)
        @Sendable func logText() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        try await waitUntil("the subscriber's subscriptions") { logText().contains("Subscribed to the circles' members.") }
        let publisher = try await MQTTClient.connected(to: broker)
        let topic = "owntracks/alice/phone"
        let base = Int(Date().timeIntervalSince1970) - 5
        let far = Geodesy.destination(from: Self.home, bearing: 90, distance: 2_000)
        let edgeBand = Geodesy.destination(from: Self.home, bearing: 90, distance: 115)
        let inside = Geodesy.destination(from: Self.home, bearing: 90, distance: 90)
        // Leaving 300 m in a second stays below the subscriber's default --max-speed (350 m/s).
        let away = Geodesy.destination(from: Self.home, bearing: 90, distance: 300)

        try await publisher.publish(to: topic, payload: Self.location(far, tst: base - 20), qos: .atLeastOnce, retain: true)
        try await publisher.publish(to: topic, payload: Self.location(inside, tst: base + 1), qos: .atLeastOnce, retain: true)
        // Nothing more is sent: the dwell time passes in silence and the subscriber's clock completes the arrival.
        let arrived = try await probe.wait("the arrival") { $0.events.first { $0.event == .arrived } }
        #expect(arrived == CircleEvent(circle: "family", user: "alice", device: "phone", event: .arrived, tst: base + 1, place: "Home"))
        let atHome = try await probe.member("family", "alice", "phone") { $0.place == "Home" }
        #expect(atHome.placeSince == base + 1)
        // Jitter across the edge: in the band (115 m, within radius 100 + margin 25) and back in.
        for (offset, position) in [edgeBand, inside, edgeBand, inside, edgeBand].enumerated() {
            try await publisher.publish(to: topic, payload: Self.location(position, tst: base + 2 + offset), qos: .atLeastOnce, retain: true)
        }
        try await publisher.publish(to: topic, payload: Self.location(away, tst: base + 7), qos: .atLeastOnce, retain: true)
        _ = try await probe.wait("the departure") { $0.events.first { $0.event == .departed } }
        // The app itself reports entering its region "home" (Android's transition, on <base>/event).
        let transition = #"{"_type":"transition","acc":13.0,"desc":"home","event":"enter","lat":52.6638,"lon":-8.6267,"t":"c","tid":"al","tst":\#(base + 8),"wtst":\#(base - 86_400)}"#
        try await publisher.publish(to: topic + "/event", payload: Data(transition.utf8), qos: .atLeastOnce, retain: false)
        let placeEvents = try await probe.wait("the transition's arrival") { snapshot -> [CircleEvent]? in
            let events = snapshot.events.filter { $0.place != nil }
            return events.count >= 3 ? events : nil
        }
        #expect(placeEvents.map(\.event) == [.arrived, .departed, .arrived], "\(placeEvents)")
        #expect(placeEvents.map(\.tst) == [base + 1, base + 7, base + 8])
        #expect(logText().contains("Member arrived at a place."))
        #expect(!logText().contains("52.66"), "coordinates are never logged at info")
        child.signal(SIGTERM)
        _ = try await withTimeout(.seconds(10), "the subscriber to exit") { await child.waitForExit() }
        await publisher.disconnect()
        await probe.stop()
        await broker.stop()
    }
}
