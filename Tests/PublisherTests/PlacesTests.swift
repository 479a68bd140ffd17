import Foundation
import Logging
import Outbox
import Prometheus
import Testing
@testable import WhereaboutsCore
import WhereaboutsTestSupport
@testable import Publisher

/// The publisher's places without a broker: the `--places` file, the `setWaypoints` shapes the
/// OwnTracks apps send, the store beside the outbox, and the reporter with a real SQLite outbox
/// (transitions, the `c` location, `inregions`, the profile switch).
@Suite("Places on the device")
struct PlacesTests {
    static let placesYAML = """
        # the shape of a circle's places: in the subscriber's circles file
        places:
          - name: Home
            lat: 52.6638
            lon: -8.6267
            radius: 100
            dwell: 30
            profile: significant
            profileOnLeave: active
          - name: Work
            lat: 52.6687
            lon: -8.6225
            radius: 150
            tst: 1700000000
        """

    @Test("The places file reads the subscriber's place shape plus profiles")
    func placesFile() throws {
        let places = try PlacesFile.parse(Self.placesYAML)
        #expect(places.map(\.name) == ["Home", "Work"])
        #expect(places[0].radius == 100 && places[0].dwell == 30)
        #expect(places[0].profile == .significant && places[0].profileOnLeave == .active)
        #expect(places[1].tst == 1_700_000_000 && places[1].dwell == nil && places[1].profile == nil)
        #expect(places.allSatisfy { $0.origin == .file })
        let bare = try PlacesFile.parse("- {name: Shop, lat: 1, lon: 2, radius: 30}\n")
        #expect(bare.map(\.name) == ["Shop"])
    }

    @Test("The shipped examples/places.yaml reads")
    func shippedExample() throws {
        let places = try PlacesFile.load(path: TestPaths.packageRoot.appendingPathComponent("examples/places.yaml").path)
        #expect(places.map(\.name) == ["Home", "Work"])
        #expect(places.allSatisfy { $0.profile == .significant && $0.profileOnLeave == .active })
    }

    @Test("A bad places file names the key and the line", arguments: [
        ("places:\n  - name: Home\n    lat: 95\n    lon: 1\n    radius: 10\n", "line 3: places[0].lat:"),
        ("places:\n  - name: Home\n    lat: 1\n    lon: 1\n", "places[0].radius: The key `radius` is missing."),
        ("places:\n  - name: Home\n    lat: 1\n    lon: 1\n    radius: 10\n    colour: red\n", "places[0].colour: Unknown key"),
        ("places:\n  - {name: A, lat: 1, lon: 1, radius: 10}\n  - {name: a, lat: 2, lon: 2, radius: 10}\n", "appears twice"),
        ("places:\n  - {name: A, lat: 1, lon: 1, radius: 10, profile: sleepy}\n", "must be active or significant"),
        ("circles: []\n", "Unknown key `circles`"),
        ("places: 3\n", "`places` must be a list"),
        ("places:\n  - {name: A, lat: 1, lon: 1, radius: 10}\nplaces:\n  - {name: B, lat: 1, lon: 1, radius: 10}\n",
         "line 3: places: The key `places` appears twice (first at line 1)"),
        ("places:\n  - {name: A, lat: 1, lon: 1, radius: 10\n", "line 3: The file is not valid YAML at column 1: did not find expected ',' or '}'"),
        ("places:\n  - &home {name: A, lat: 1, lon: 1, radius: 10}\n  - *home\n", "line 3: The file is not valid YAML at column 5: the alias `*home`"),
    ])
    func badPlacesFile(yaml: String, expected: String) {
        #expect {
            _ = try PlacesFile.parse(yaml)
        } throws: { error in
            "\(error)".contains(expected)
        }
    }

    /// `setWaypoints` exactly as the apps take it: the nested `waypoints` object (Android's
    /// MessageCmd with a MessageWaypoints, iOS's performSetWaypoints), iOS's `payload` form and a
    /// bare list; coordinates as numbers or as the quoted strings of the booklet's examples.
    @Test("setWaypoints parses every shape the OwnTracks apps accept", arguments: [
        #"{"_type":"cmd","action":"setWaypoints","waypoints":{"_type":"waypoints","waypoints":[{"_type":"waypoint","desc":"Home","lat":52.6638,"lon":-8.6267,"rad":100,"tst":1700000000}]}}"#,
        #"{"_type":"cmd","action":"setWaypoints","payload":{"_type":"waypoints","waypoints":[{"_type":"waypoint","desc":"Home","lat":52.6638,"lon":-8.6267,"rad":100,"tst":1700000000}]}}"#,
        #"{"_type":"cmd","action":"setWaypoints","waypoints":[{"_type":"waypoint","desc":"Home","lat":"52.6638","lon":"-8.6267","rad":"100","tst":"1700000000"}]}"#,
    ])
    func setWaypointsShapes(json: String) throws {
        guard case .setWaypoints(let batch) = try CommandMessage(payload: Data(json.utf8)) else {
            Issue.record("not a setWaypoints command")
            return
        }
        #expect(batch.rejected.isEmpty)
        #expect(batch.items == [WaypointBatch.Item(name: "Home", lat: 52.6638, lon: -8.6267, radius: 100, tst: 1_700_000_000, rid: nil)])
    }

    @Test("Invalid waypoints are refused one by one with a reason; the valid ones stay")
    func invalidWaypoints() throws {
        let json = #"""
            {"_type":"cmd","action":"setWaypoints","waypoints":{"_type":"waypoints","waypoints":[
             {"_type":"waypoint","desc":"Good","lat":1,"lon":2,"rad":50,"tst":1700000000},
             {"_type":"waypoint","desc":"No radius","lat":1,"lon":2,"tst":1700000001},
             {"_type":"waypoint","desc":"North of the pole","lat":91,"lon":2,"rad":50},
             {"_type":"waypoint","desc":"Bool lon","lat":1,"lon":true,"rad":50},
             {"_type":"waypoint","lat":1,"lon":2,"rad":50},
             {"_type":"location","desc":"Wrong type","lat":1,"lon":2,"rad":50},
             {"_type":"waypoint","desc":"Huge","lat":1,"lon":2,"rad":1e9},
             {"_type":"waypoint","desc":"Fraction","lat":1,"lon":2,"rad":5,"tst":1.5},
             "not an object",
             {"_type":"waypoint","desc":"Also good","lat":-1,"lon":-2,"rad":"25"}
            ]}}
            """#
        guard case .setWaypoints(let batch) = try CommandMessage(payload: Data(json.utf8)) else {
            Issue.record("not a setWaypoints command")
            return
        }
        #expect(batch.items.map(\.name) == ["Good", "Also good"])
        #expect(batch.items[1].tst == nil)
        #expect(batch.rejected.map(\.index) == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(batch.rejected[0].description.contains("No radius") && batch.rejected[0].reason.contains("rad"))
        #expect(batch.rejected[1].reason.contains("lat must be a number from -90 to 90"))
        #expect(batch.rejected[2].reason.contains("lon"))
        #expect(batch.rejected[3].reason.contains("desc"))
        #expect(batch.rejected[4].reason.contains("_type"))
        #expect(batch.rejected[7].reason.contains("not a JSON object"))
    }

    @Test("setWaypoints without a list, and oversize commands, are rejected")
    func setWaypointsRejected() throws {
        #expect(throws: CommandMessageError.missingWaypoints) {
            try CommandMessage(payload: Data(#"{"_type":"cmd","action":"setWaypoints"}"#.utf8))
        }
        #expect(throws: CommandMessageError.missingWaypoints) {
            try CommandMessage(payload: Data(#"{"_type":"cmd","action":"setWaypoints","waypoints":3}"#.utf8))
        }
        let padding = String(repeating: " ", count: 5000)
        let big = #"{"_type":"cmd","action":"reportLocation","x":"\#(padding)"}"#
        #expect(throws: CommandMessageError.tooLarge(bytes: big.utf8.count)) { try CommandMessage(payload: Data(big.utf8)) }
        let many = (0..<60).map { #"{"_type":"waypoint","desc":"Place \#($0)","lat":1,"lon":2,"rad":50,"tst":\#(1_700_000_000 + $0)}"# }
        let large = #"{"_type":"cmd","action":"setWaypoints","waypoints":{"_type":"waypoints","waypoints":[\#(many.joined(separator: ","))]}}"#
        #expect(large.utf8.count > CommandMessage.maxPayloadSize)
        if case .setWaypoints(let batch) = try? CommandMessage(payload: Data(large.utf8)) {
            #expect(batch.items.count == 60)
        } else {
            Issue.record("a 60-waypoint setWaypoints above 4 KiB must parse")
        }
        #expect(try CommandMessage(payload: Data(#"{"_type":"cmd","action":"clearWaypoints"}"#.utf8)) == .clearWaypoints)
        #expect(try CommandMessage(payload: Data(#"{"_type":"cmd","action":"waypoints"}"#.utf8)) == .listWaypoints)
    }

    @Test("The store round-trips, sets a damaged file aside without crashing, and a failed save keeps the old file")
    func store() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("places-alice-phone.json")
        let store = WaypointStore(path: path, logger: Logger(label: "test"))
        #expect(store.load() == WaypointStore.Contents())
        let place = Place(name: "Gym", lat: 1, lon: 2, radius: 40, waypoint: Place.Waypoint(tst: 1_700_000_000, origin: .command))
        #expect(store.save(WaypointStore.Contents(waypoints: [place], inside: ["gym"])))
        #expect(store.load().waypoints == [place])
        #expect(store.load().inside == ["gym"])
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))

        try Data("{\"version\":1,\"waypoints\":[{\"name\":".utf8).write(to: URL(fileURLWithPath: path))
        #expect(store.load() == WaypointStore.Contents())
        let aside = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter { $0.hasPrefix("places-alice-phone.json.damaged-") }
        #expect(aside.count == 1)
        #expect(!FileManager.default.fileExists(atPath: path))

        let nowhere = WaypointStore(path: dir.path("missing/folder/places.json"), logger: Logger(label: "test"))
        #expect(!nowhere.save(WaypointStore.Contents(waypoints: [place])))
    }

    /// A reporter over a real outbox, with Home (significant inside, active after) from the file.
    func reporter(dir: TemporaryDirectory, dwell: Double = 0) throws -> (Reporter, Outbox) {
        let outbox = try Outbox(path: dir.path("outbox.sqlite"), logger: Logger(label: "test"))
        var settings = PublisherSettings(tid: "al", topicBase: "owntracks/alice/phone")
        settings.heartbeat = 900
        let places = DevicePlaces(
            filePlaces: try PlacesFile.parse(Self.placesYAML), rules: PlaceRules.device(margin: 25, defaultDwell: dwell),
            store: WaypointStore(path: dir.path("places.json"), logger: Logger(label: "test")), logger: Logger(label: "test"))
        let reporter = Reporter(
            settings: settings, filter: FixFilter(settings: FixFilter.Settings(maxAge: nil)),
            policies: ProfilePolicies(active: { IntervalPolicy() }, significant: { SignificantPolicy() }),
            outbox: outbox, metrics: PublisherMetrics(factory: PrometheusMetricsFactory(registry: PrometheusCollectorRegistry())),
            doorbell: Doorbell(), clock: WallFixClock(), places: places, logger: Logger(label: "test"))
        return (reporter, outbox)
    }

    static func fix(_ lat: Double, _ lon: Double, at seconds: Int) -> Fix {
        Fix(time: Date(timeIntervalSince1970: Double(1_700_000_000 + seconds)), latitude: lat, longitude: lon, horizontalAccuracy: 8)
    }

    @Test("Entering and leaving commit a transition then a c location, switch profile and fill inregions")
    func reporterTransitions() async throws {
        let dir = try TemporaryDirectory()
        let (reporter, outbox) = try reporter(dir: dir)
        try await reporter.handle(Self.fix(52.6638, -8.6267, at: 0))  // inside Home: its 30 s dwell starts
        #expect(await reporter.profile == .active)
        try await reporter.handle(Self.fix(52.6638, -8.6267, at: 30))
        #expect(await reporter.profile == .significant)
        try await reporter.handle(Self.fix(52.6638, -8.6200, at: 90))  // ~450 m east: one fix beyond is not enough
        #expect(await reporter.profile == .significant)
        try await reporter.handle(Self.fix(52.6638, -8.6199, at: 91))  // the second in a row: left
        #expect(await reporter.profile == .active)
        let all = try await outbox.oldest(limit: 10)
        #expect(all.first?.topic == "owntracks/alice/phone", "the first fix is reported as usual")
        let entries = Array(all.dropFirst())
        #expect(entries.map(\.topic) == [
            "owntracks/alice/phone/event", "owntracks/alice/phone", "owntracks/alice/phone/event", "owntracks/alice/phone",
        ])
        let enter = try JSONSerialization.jsonObject(with: entries[0].payload) as? [String: Any] ?? [:]
        #expect(enter["_type"] as? String == "transition")
        #expect(enter["event"] as? String == "enter")
        #expect(enter["desc"] as? String == "Home")
        #expect(enter["t"] as? String == "c")
        #expect(enter["tid"] as? String == "al")
        #expect(enter["tst"] as? Int == 1_700_000_030)
        #expect(enter["wtst"] as? Int == 0)
        #expect(enter["acc"] as? Int == 8)
        #expect(enter["lat"] as? Double == 52.6638 && enter["lon"] as? Double == -8.6267)
        #expect(enter["rid"] as? String == Place.derivedRID(name: "Home", tst: 0))
        let atHome = try JSONDecoder().decode(LocationMessage.self, from: entries[1].payload)
        #expect(atHome.t == "c" && atHome.m == 1 && atHome.inregions == ["Home"] && atHome.inrids?.count == 1)
        let leave = try JSONSerialization.jsonObject(with: entries[2].payload) as? [String: Any] ?? [:]
        #expect(leave["event"] as? String == "leave" && leave["tst"] as? Int == 1_700_000_091)
        let away = try JSONDecoder().decode(LocationMessage.self, from: entries[3].payload)
        #expect(away.t == "c" && away.m == 2 && away.inregions == nil)
    }

    @Test("A restart inside Home restores the significant profile and sends no second enter")
    func restartInside() async throws {
        let dir = try TemporaryDirectory()
        do {
            let (reporter, _) = try reporter(dir: dir)
            try await reporter.handle(Self.fix(52.6638, -8.6267, at: 0))
            try await reporter.handle(Self.fix(52.6638, -8.6267, at: 30))
            #expect(await reporter.profile == .significant)
        }
        let (again, outbox) = try reporter(dir: dir)
        #expect(await again.profile == .significant)
        let before = try await outbox.oldest(limit: 100).count
        try await again.handle(Self.fix(52.6638, -8.6266, at: 10))
        let after = try await outbox.oldest(limit: 100)
        #expect(!after.dropFirst(before).contains { $0.topic.hasSuffix("/event") })
    }

    @Test("Waypoints set by command join the file's places; a clash with a file place is refused; clear keeps the file's")
    func commandWaypoints() async throws {
        let dir = try TemporaryDirectory()
        let (reporter, _) = try reporter(dir: dir)
        let json = #"{"_type":"cmd","action":"setWaypoints","waypoints":{"_type":"waypoints","waypoints":[{"_type":"waypoint","desc":"Gym","lat":52.66,"lon":-8.63,"rad":60,"tst":1700000100},{"_type":"waypoint","desc":"home","lat":1,"lon":1,"rad":60}]}}"#
        guard case .setWaypoints(let batch) = try CommandMessage(payload: Data(json.utf8)) else { return }
        #expect(batch.items.map(\.index) == [0, 1])
        #expect(await reporter.setWaypoints(batch) == 1)
        #expect(await reporter.allPlaces.map(\.name) == ["Home", "Work", "Gym"])
        let stored = WaypointStore(path: dir.path("places.json"), logger: Logger(label: "test")).load()
        #expect(stored.waypoints.map(\.name) == ["Gym"])
        #expect(await reporter.clearWaypoints() == 1)
        #expect(await reporter.allPlaces.map(\.name) == ["Home", "Work"])
        #expect(WaypointStore(path: dir.path("places.json"), logger: Logger(label: "test")).load().waypoints.isEmpty)
    }

    @Test("A low battery still overrides a place's profile")
    func batteryOverridesPlace() async throws {
        let dir = try TemporaryDirectory()
        let (reporter, _) = try reporter(dir: dir)
        await reporter.updateBattery(BatteryReading(level: 5, status: .unplugged), low: true)
        try await reporter.handle(Self.fix(52.6638, -8.6267, at: 0))
        try await reporter.handle(Self.fix(52.6638, -8.6267, at: 30))
        try await reporter.handle(Self.fix(52.6638, -8.6200, at: 90))
        try await reporter.handle(Self.fix(52.6638, -8.6199, at: 91))
        #expect(await reporter.profile == .significant, "left Home asks for active, but the battery is low")
        await reporter.updateBattery(BatteryReading(level: 80, status: .charging), low: false)
        #expect(await reporter.profile == .active, "the profile last asked for (by leaving Home) returns")
    }

    @Test("Transitions in the outbox are never retained; as backlog they get created_at and stay transitions")
    func deliveryOfTransitions() throws {
        let since = Date(timeIntervalSince1970: 1_700_000_100)
        let transition = Data(#"{"_type":"transition","acc":8,"desc":"Home","event":"enter","lat":52.6638,"lon":-8.6267,"rid":"x","t":"c","tid":"al","tst":1700000000,"wtst":0}"#.utf8)
        let entry = OutboxEntry(id: 7, topic: "owntracks/alice/phone/event", payload: transition, tst: 1_700_000_000, createdAt: since)
        let live = DeliveryPlan(entry: entry, newestID: 7, connectedSince: since, retried: false, retain: true, locationTopic: "owntracks/alice/phone")
        #expect(!live.retain && !live.isBacklog && live.payload == transition)
        let backlog = DeliveryPlan(
            entry: entry, newestID: 7, connectedSince: since.addingTimeInterval(60), retried: false, retain: true,
            locationTopic: "owntracks/alice/phone", now: since.addingTimeInterval(120))
        #expect(!backlog.retain && backlog.isBacklog)
        let object = try JSONSerialization.jsonObject(with: backlog.payload) as? [String: Any] ?? [:]
        #expect(object["_type"] as? String == "transition" && object["event"] as? String == "enter" && object["desc"] as? String == "Home")
        #expect(object["created_at"] as? Int == 1_700_000_220)
    }

    @Test("The publisher's reporter and PlaceProfilePolicy (what PlaceDayBenchmark measures) report the same fixes with the same triggers")
    func benchmarkRuleIsThePublishers() async throws {
        let dir = try TemporaryDirectory()
        let (reporter, outbox) = try reporter(dir: dir)
        var fixes: [Fix] = []
        for t in stride(from: 0, through: 100, by: 10) { fixes.append(Self.fix(52.6638, -8.6267, at: t)) }
        for (step, t) in stride(from: 110, through: 400, by: 10).enumerated() {
            let east = Geodesy.destination(from: Coordinate(latitude: 52.6638, longitude: -8.6267), bearing: 90, distance: Double(step + 1) * 50)
            fixes.append(Self.fix(east.latitude, east.longitude, at: t))
        }
        for (step, t) in stride(from: 410, through: 700, by: 10).enumerated() {
            let back = Geodesy.destination(from: Coordinate(latitude: 52.6638, longitude: -8.6267), bearing: 90, distance: max(0, 1500 - Double(step + 1) * 60))
            fixes.append(Self.fix(back.latitude, back.longitude, at: t))
        }
        for fix in fixes { try await reporter.handle(fix) }
        let published = try await outbox.oldest(limit: 1000).filter { $0.topic == "owntracks/alice/phone" }.map { entry in
            let message = try JSONDecoder().decode(LocationMessage.self, from: entry.payload)
            return "\(message.tst) \(message.t ?? "-") m\(message.m ?? 0)"
        }
        var policy = PlaceProfilePolicy(
            places: try PlacesFile.parse(Self.placesYAML), rules: PlaceRules.device(margin: 25, defaultDwell: 0),
            active: { IntervalPolicy() }, significant: { SignificantPolicy() })
        var modes: [String] = []
        for fix in fixes {
            if let report = policy.consider(fix) {
                modes.append("\(Int(report.fix.time.timeIntervalSince1970)) \(report.trigger.rawValue) m\(policy.mode.rawValue)")
            }
        }
        #expect(published == modes)
        #expect(policy.transitions.map { "\($0.event.rawValue) \($0.place.name)" } == ["enter Home", "leave Home", "enter Home"])
        #expect(published.filter { $0.contains(" c ") }.count == 3)
    }
}
