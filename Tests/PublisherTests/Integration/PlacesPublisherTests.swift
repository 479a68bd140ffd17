import Foundation
import Logging
import Testing
@testable import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// Places on the device with the real whereabouts-pub binary and a real mosquitto: transitions as
/// the OwnTracks apps publish them, the `c` location, `inregions`, the profile switch, and the
/// `setWaypoints`/`waypoints`/`clearWaypoints` commands sent exactly as the apps send them, kept
/// across a kill -9.
@Suite("Places of the publisher", .serialized, .enabled(if: PublisherProcess.executable != nil))
struct PlacesPublisherTests {
    static let track = TestPaths.fixtures.appendingPathComponent("publisher/drive-240s.gpx").path
    /// The topic keeps --user Alice --device Phone as given (OwnTracksName).
    static let topic = "owntracks/Alice/Phone"
    /// The fields of an OwnTracks transition: Android's MessageTransition plus iOS's `rid`.
    static let transitionFields: Set<String> = ["_type", "tid", "tst", "wtst", "lat", "lon", "acc", "event", "desc", "t", "rid"]

    static func object(_ message: MQTTMessage) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: message.payload) as? [String: Any]) ?? [:]
    }

    @Test("A drive out of a place of the --places file: enter and leave on <base>/event, field by field, with c locations and the profile switch")
    func fileRoute() async throws {
        let broker = try await Broker.start()
        let dir = try TemporaryDirectory()
        // The drive starts at 52.6638, -8.6266896 and heads east at about 10 m/s.
        let places = try dir.write("""
            places:
              - name: Start
                lat: 52.6638
                lon: -8.6266896
                radius: 60
                dwell: 0
                profile: significant
                profileOnLeave: active
                tst: 1699999000
            """, to: "places.yaml")
        let recorder = try await Recorder(broker: broker)
        let pub = try PublisherProcess(arguments: [
            "--source", "gpx:\(Self.track)", "--replay-speed", "20", "--user", "Alice", "--device", "Phone", "--tid", "al",
            "--broker", "mqtt://\(broker.host):\(broker.port)", "--outbox", dir.path("outbox.sqlite"),
            "--power-supply-path", dir.path("no-sysfs"), "--places", places, "--log-level", "debug",
        ], logFile: dir.url.appendingPathComponent("pub.log"))
        #expect(try await pub.waitForExit(timeout: .seconds(60)) == 0)
        try await recorder.waitUntil("the enter and leave transitions") { messages in
            messages.filter { $0.topic == Self.topic + "/event" }.count >= 2
        }
        let messages = recorder.messages
        let events = messages.filter { $0.topic == Self.topic + "/event" }
        #expect(events.count == 2)
        #expect(events.allSatisfy { !$0.retained })
        let enter = Self.object(events[0]), leave = Self.object(events[1])
        for event in [enter, leave] {
            // A transition committed before the connection was up goes out as backlog, with
            // `created_at` after its `tst` (as iOS sends a late one): the enter at the first fix
            // does when the machine is slow to connect (seen in a fresh-clone CI run).
            // The receipt stamp (docs/receipts.md) rides on every report; the apps' fields are the rest.
            var fields = Set(event.keys).subtracting(["seq", "seq_epoch", "seq_settled", "unconfirmed", "unconfirmed_since"])
            if let createdAt = event["created_at"] as? Int {
                #expect(createdAt > event["tst"] as? Int ?? .max)
                fields.remove("created_at")
            }
            #expect(fields == Self.transitionFields)
            #expect(event["_type"] as? String == "transition")
            #expect(event["desc"] as? String == "Start")
            #expect(event["t"] as? String == "c")
            #expect(event["tid"] as? String == "al")
            #expect(event["wtst"] as? Int == 1_699_999_000)
            #expect(event["rid"] as? String == Place.derivedRID(name: "Start", tst: 1_699_999_000))
            #expect((event["acc"] as? Int ?? 0) > 0)
        }
        #expect(enter["event"] as? String == "enter")
        #expect(leave["event"] as? String == "leave")
        // The drive's first fix, 2023-11-14T22:13:20Z, is at the centre.
        #expect(enter["tst"] as? Int == 1_700_000_000)
        #expect(enter["lat"] as? Double == 52.6638 && enter["lon"] as? Double == -8.62669)
        let leaveTST = try #require(leave["tst"] as? Int)
        #expect(leaveTST > 1_700_000_000 && leaveTST < 1_700_000_030, "about 6 s at 10 m/s to pass 60 + 25 m")
        let leftAt = Coordinate(latitude: try #require(leave["lat"] as? Double), longitude: try #require(leave["lon"] as? Double))
        #expect(Geodesy.distance(leftAt, Coordinate(latitude: 52.6638, longitude: -8.6266896)) > 85)

        let locations = recorder.locations(on: Self.topic).map(\.message)
        let regional = locations.filter { $0.t == "c" }
        #expect(regional.count == 2)
        #expect(regional.first?.tst == 1_700_000_000 && regional.first?.m == 1 && regional.first?.inregions == ["Start"])
        #expect(regional.first?.inrids == [Place.derivedRID(name: "Start", tst: 1_699_999_000)])
        #expect(regional.last?.tst == leaveTST && regional.last?.m == 2 && regional.last?.inregions == nil)
        #expect(locations.filter { $0.tst > leaveTST }.allSatisfy { $0.m == 2 && $0.inregions == nil })
        // Each transition went out before its location, and the retained message is a location.
        let order = messages.filter { $0.topic == Self.topic || $0.topic == Self.topic + "/event" }
        let enterIndex = try #require(order.firstIndex { Self.object($0)["event"] as? String == "enter" })
        #expect(Self.object(order[enterIndex + 1])["t"] as? String == "c")
        let retained = try await retainedMessage(on: Self.topic, broker: broker)
        #expect(Self.object(retained)["_type"] as? String == "location")
        // Home Assistant's OwnTracks integration handles every message, the transitions included.
        for message in messages {
            let verdict = HomeAssistantOwnTracks.verdict(topic: message.topic, payload: message.payload)
            #expect(verdict.isQuiet, "\(message.topic): \(verdict)")
        }
        await recorder.stop()
        await broker.stop()
    }

    @Test("setWaypoints, waypoints and clearWaypoints as the apps send them; the waypoints and the inside state survive kill -9")
    func commands() async throws {
        let broker = try await Broker.start()
        let dir = try TemporaryDirectory()
        let metricsPort = try FreePort.find()
        let arguments = [
            "--source", "sim:still?lat=52.6638&lon=-8.6267&outliers=0", "--user", "Alice", "--device", "Phone", "--tid", "al",
            "--broker", "mqtt://\(broker.host):\(broker.port)", "--outbox", dir.path("outbox.sqlite"),
            "--power-supply-path", dir.path("no-sysfs"), "--place-dwell", "2", "--log-level", "debug",
            "--metrics-port", "\(metricsPort)",
        ]
        let log = dir.url.appendingPathComponent("pub.log")
        let recorder = try await Recorder(broker: broker)
        var pub = try PublisherProcess(arguments: arguments, logFile: log)
        try await recorder.waitUntil("a first location") { $0.contains { $0.topic == Self.topic } }
        try await pub.waitForLog("Connected.")
        let commander = MQTTClient(configuration: broker.clientConfiguration(clientID: "commander"), logger: .test("cmd"))
        try await commander.connect()

        // Android's MessageCmd: action setWaypoints with a MessageWaypoints; one waypoint has no radius.
        let set = #"""
            {"_type":"cmd","action":"setWaypoints","waypoints":{"_type":"waypoints","waypoints":[
            {"_type":"waypoint","desc":"Home","lat":52.6638,"lon":-8.6267,"rad":100,"tst":1700000000},
            {"_type":"waypoint","desc":"Office","lat":52.67,"lon":-8.60,"rad":150,"tst":1700000500,"rid":"office-1"},
            {"_type":"waypoint","desc":"Somewhere","lat":52.1,"lon":-8.1,"tst":1700000600}]}}
            """#
        try await commander.publish(to: Self.topic + "/cmd", payload: Data(set.utf8))
        try await pub.waitForLog("Waypoint rejected.")
        #expect(pub.log.contains("waypoint 2 (Somewhere): no radius"))
        try await recorder.waitUntil("the enter transition for Home") { messages in
            messages.contains { $0.topic == Self.topic + "/event" && Self.object($0)["desc"] as? String == "Home" }
        }
        let enter = try #require(recorder.messages.first { $0.topic == Self.topic + "/event" })
        #expect(Set(Self.object(enter).keys).subtracting(["seq", "seq_epoch", "seq_settled", "unconfirmed", "unconfirmed_since"]) == Self.transitionFields)
        #expect(Self.object(enter)["event"] as? String == "enter")
        #expect(Self.object(enter)["wtst"] as? Int == 1_700_000_000)

        let metrics = try await scrapeMetrics(port: metricsPort)
        #expect(metricValue("whereabouts_pub_waypoints_rejected_total", in: metrics) == 1)
        #expect(metricValue("whereabouts_pub_transitions_total", in: metrics) == 1)

        try await commander.publish(to: Self.topic + "/cmd", payload: Data(#"{"_type":"cmd","action":"waypoints"}"#.utf8))
        try await recorder.waitUntil("the waypoints reply") { $0.contains { $0.topic == Self.topic + "/waypoints" } }
        let reply = try #require(recorder.messages.first { $0.topic == Self.topic + "/waypoints" })
        #expect(!reply.retained)
        let replyObject = Self.object(reply)
        #expect(replyObject["_type"] as? String == "waypoints")
        let listed = replyObject["waypoints"] as? [[String: Any]] ?? []
        #expect(listed.map { $0["desc"] as? String } == ["Home", "Office"])
        #expect(listed.allSatisfy { $0["_type"] as? String == "waypoint" })
        #expect(listed.last?["rid"] as? String == "office-1" && listed.last?["rad"] as? Int == 150 && listed.last?["tst"] as? Int == 1_700_000_500)

        // kill -9, then the same command line: the waypoints and "inside Home" come back.
        pub.signal(SIGKILL)
        _ = try await pub.waitForExit(timeout: .seconds(10))
        let stored = try String(contentsOfFile: dir.path("places-alice-phone.json"), encoding: .utf8)
        #expect(stored.contains("Office") && stored.contains("\"home\""))
        let before = recorder.messages.count
        pub = try PublisherProcess(arguments: arguments, logFile: log)
        try await recorder.waitUntil("a location after the restart") { messages in
            messages.dropFirst(before).contains { $0.topic == Self.topic && Self.object($0)["_type"] as? String == "location" }
        }
        let first = try #require(recorder.messages.dropFirst(before).first {
            $0.topic == Self.topic && Self.object($0)["_type"] as? String == "location"
        })
        #expect(Self.object(first)["inregions"] as? [String] == ["Home"], "inside Home again at once, without a dwell")
        try await pub.waitForLogCount("Connected.", atLeast: 2)
        let afterRestart = recorder.messages.count
        try await commander.publish(to: Self.topic + "/cmd", payload: Data(#"{"_type":"cmd","action":"waypoints"}"#.utf8))
        try await recorder.waitUntil("the waypoints reply after the restart") { messages in
            messages.dropFirst(afterRestart).contains { $0.topic == Self.topic + "/waypoints" }
        }
        let again = try #require(recorder.messages.dropFirst(afterRestart).first { $0.topic == Self.topic + "/waypoints" })
        #expect((Self.object(again)["waypoints"] as? [[String: Any]])?.map { $0["desc"] as? String } == ["Home", "Office"])

        // Well past the dwell after the restart (a reply made 3 s of fixes later), still one enter.
        let firstTST = try #require(Self.object(first)["tst"] as? Int)
        try await waitUntil("a reportLocation reply 3 s after the restart", timeout: .seconds(20), interval: .milliseconds(500)) {
            let late = recorder.messages.dropFirst(before).contains {
                $0.topic == Self.topic && Self.object($0)["t"] as? String == "r" && (Self.object($0)["tst"] as? Int ?? 0) >= firstTST + 3
            }
            if !late {
                Task { try? await commander.publish(to: Self.topic + "/cmd", payload: Data(#"{"_type":"cmd","action":"reportLocation"}"#.utf8)) }
            }
            return late
        }
        #expect(recorder.messages.filter { $0.topic == Self.topic + "/event" }.count == 1)

        try await commander.publish(to: Self.topic + "/cmd", payload: Data(#"{"_type":"cmd","action":"clearWaypoints"}"#.utf8))
        try await pub.waitForLog("Waypoints cleared.")
        let afterClear = recorder.messages.count
        try await commander.publish(to: Self.topic + "/cmd", payload: Data(#"{"_type":"cmd","action":"waypoints"}"#.utf8))
        try await recorder.waitUntil("the empty waypoints reply") { messages in
            messages.dropFirst(afterClear).contains { $0.topic == Self.topic + "/waypoints" }
        }
        let empty = try #require(recorder.messages.dropFirst(afterClear).first { $0.topic == Self.topic + "/waypoints" })
        #expect((Self.object(empty)["waypoints"] as? [Any])?.isEmpty == true)
        pub.signal(SIGTERM)
        #expect(try await pub.waitForExit(timeout: .seconds(20)) == 0)
        await commander.disconnect()
        await recorder.stop()
        await broker.stop()
    }

    @Test("A damaged places file in the state directory is set aside and logged; the publisher runs on")
    func damagedStore() async throws {
        let broker = try await Broker.start()
        let dir = try TemporaryDirectory()
        _ = try dir.write("{\"version\":1,\"waypoints\":[{\"name\":\"Ho", to: "places-alice-phone.json")
        let recorder = try await Recorder(broker: broker)
        let pub = try PublisherProcess(arguments: [
            "--source", "sim:still?lat=52.6638&lon=-8.6267&outliers=0", "--user", "Alice", "--device", "Phone",
            "--broker", "mqtt://\(broker.host):\(broker.port)", "--outbox", dir.path("outbox.sqlite"),
            "--power-supply-path", dir.path("no-sysfs"),
        ], logFile: dir.url.appendingPathComponent("pub.log"))
        try await pub.waitForLog("The stored places file is damaged; set it aside")
        try await recorder.waitUntil("a location") { $0.contains { $0.topic == Self.topic } }
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.url.path)
        #expect(names.contains { $0.hasPrefix("places-alice-phone.json.damaged-") })
        #expect(pub.process.isRunning)
        pub.signal(SIGTERM)
        #expect(try await pub.waitForExit(timeout: .seconds(20)) == 0)
        await recorder.stop()
        await broker.stop()
    }
}
