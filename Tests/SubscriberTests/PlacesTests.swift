import Foundation
import Logging
import Testing
@testable import WhereaboutsCore
import WhereaboutsTestSupport
@testable import Subscriber

/// Places in the circles file and in the store: parsing and its errors, arrivals and departures
/// as events and in the view, the device's own transitions, replayed state, reloads.
@Suite("Places")
struct PlacesTests {
    static let yaml = """
        circles:
          - id: family
            members:
              - {user: alice, device: phone, name: Alice}
            places:
              - {name: Home, lat: 52.0, lon: -8.6, radius: 100}
              - {name: School, lat: 52.01, lon: -8.6, radius: 50, dwell: 0}
          - id: work
            members:
              - {user: alice, device: phone}
        """
    static let home = Coordinate(latitude: 52.0, longitude: -8.6)
    static let away = Geodesy.destination(from: home, bearing: 180, distance: 1_000)

    static func store() throws -> CircleViewStore {
        CircleViewStore(circles: try CirclesFile.parse(yaml: yaml), logger: Build.quietLogger, now: Build.date(Build.t0 - 10))
    }

    static func fix(_ tst: Int, at position: Coordinate, acc: Int = 5) -> InboundMessage {
        .location(LocationMessage(tid: "al", tst: tst, lat: position.latitude, lon: position.longitude, acc: acc), inregions: nil)
    }

    @Test("Places are read with their centre, radius and dwell")
    func parse() throws {
        let file = try CirclesFile.parse(yaml: Self.yaml)
        #expect(file.circles[0].places == [
            Place(name: "Home", lat: 52.0, lon: -8.6, radius: 100),
            Place(name: "School", lat: 52.01, lon: -8.6, radius: 50, dwell: 0),
        ])
        #expect(file.circles[1].places.isEmpty)
    }

    @Test("A malformed place is an error naming the key, the line and the rule", arguments: [
        ("{name: Home, lat: 52, lon: -8.6}", "circles[0].places[0].radius", "missing"),
        ("{name: Home, lat: 95, lon: -8.6, radius: 10}", "circles[0].places[0].lat", "between -90 and 90"),
        ("{name: Home, lat: 52, lon: -8.6, radius: 0}", "circles[0].places[0].radius", "between 1 and 50000"),
        ("{name: Home, lat: 52, lon: -8.6, radius: 1e9}", "circles[0].places[0].radius", "between 1 and 50000"),
        ("{name: Home, lat: 52, lon: -8.6, radius: .nan}", "circles[0].places[0].radius", "must be a number"),
        ("{name: Home, lat: north, lon: -8.6, radius: 10}", "circles[0].places[0].lat", "must be a number"),
        ("{name: Home, lat: 52, lon: -8.6, radius: 10, dwell: -5}", "circles[0].places[0].dwell", "between 0 and 86400"),
        ("{name: Home, lat: 52, lon: -8.6, radius: 10, radius_m: 5}", "circles[0].places[0].radius_m", "Unknown key"),
    ])
    func malformed(entry: String, key: String, says: String) {
        let yaml = "circles:\n  - id: a\n    members: []\n    places:\n      - \(entry)\n"
        #expect {
            _ = try CirclesFile.parse(yaml: yaml)
        } throws: { error in
            guard let error = error as? CirclesFileError else { return false }
            return error.key == key && error.line == 5 && error.message.contains(says)
        }
    }

    @Test("Privacy levels are read per circle and per member; an unknown level or grid is an error naming the key")
    func privacyConfig() throws {
        let file = try CirclesFile.parse(yaml: """
            circles:
              - id: a
                privacy: coarse
                grid: 250
                members:
                  - {user: alice, device: phone, share: place}
                  - {user: bob, device: phone}
            """)
        let circle = file.circles[0]
        #expect(circle.privacy == .coarse && circle.grid == 250)
        #expect(circle.level(of: circle.members[0]) == .place)
        #expect(circle.level(of: circle.members[1]) == .coarse)
        // A member cannot share more than the circle allows.
        #expect(Circle(id: "b", name: "b", members: [Member(user: "c", device: "d", share: .exact)], privacy: .place)
            .level(of: Member(user: "c", device: "d", share: .exact)) == .place)
        for (yaml, key) in [
            ("circles:\n  - id: a\n    privacy: fuzzy\n    members: []\n", "circles[0].privacy"),
            ("circles:\n  - id: a\n    grid: 1\n    members: []\n", "circles[0].grid"),
            ("circles:\n  - id: a\n    members:\n      - {user: a, device: p, share: some}\n", "circles[0].members[0].share"),
        ] {
            #expect {
                _ = try CirclesFile.parse(yaml: yaml)
            } throws: { error in
                (error as? CirclesFileError)?.key == key
            }
        }
    }

    @Test("A coarse view snaps the fix to the grid's cell centre and drops velocity, trail and regions; place and hidden drop the fix")
    func redaction() throws {
        var view = MemberView(user: "alice", device: "phone", name: "Alice", status: .online,
                              fix: FixView(tst: 5, lat: 52.663841, lon: -8.626729, acc: 8, alt: 20, vel: 6, cog: 70, ve: 1.6, vn: 0.6, ms: 60),
                              speed: 1.7, course: 70, display: DisplayPosition(lat: 52.6639, lon: -8.6266, extrapolated: true),
                              trail: [TrailPoint(tst: 5, lat: 52.663841, lon: -8.626729)])
        view.inregions = ["Garden"]
        view.place = "Home"
        let coarse = view.redacted(to: .coarse, grid: 1000)
        let fix = try #require(coarse.fix)
        #expect(Geodesy.distance(Coordinate(latitude: fix.lat, longitude: fix.lon), Coordinate(latitude: 52.663841, longitude: -8.626729)) <= 710)
        #expect(fix.acc == 1000 && fix.ve == nil && fix.vn == nil && fix.vel == nil && fix.cog == nil && fix.alt == nil && fix.ms == nil)
        #expect(coarse.trail.isEmpty && coarse.speed == nil && coarse.course == nil && coarse.inregions == nil)
        #expect(coarse.display == DisplayPosition(lat: fix.lat, lon: fix.lon, extrapolated: false))
        #expect(coarse.place == "Home")
        let nearby = view
        var moved = nearby
        moved.fix?.lat = 52.663900
        #expect(moved.redacted(to: .coarse, grid: 1000).fix?.lat == fix.lat, "points of one cell look the same")
        let place = view.redacted(to: .place, grid: 1000)
        #expect(place.fix == nil && place.display == nil && place.trail.isEmpty && place.place == "Home" && place.status == .online)
        #expect(place.privacy == .place && coarse.privacy == .coarse && view.privacy == .exact)
        let hidden = view.redacted(to: .hidden, grid: 1000)
        #expect(hidden.fix == nil && hidden.place == nil && hidden.status == .online)
        #expect(view.redacted(to: .exact, grid: 1000) == view)
    }

    @Test("Two places of one circle may not share a name, whatever its case")
    func duplicateName() {
        let yaml = "circles:\n  - id: a\n    members: []\n    places:\n      - {name: Home, lat: 1, lon: 1, radius: 10}\n      - {name: home, lat: 2, lon: 2, radius: 10}\n"
        #expect {
            _ = try CirclesFile.parse(yaml: yaml)
        } throws: { error in
            (error as? CirclesFileError)?.key == "circles[0].places[1].name"
        }
    }

    @Test("Arriving after the dwell time and leaving are events of the place's circle only, and the view says where and since when")
    func arriveAndLeave() async throws {
        let store = try Self.store()
        let t0 = Build.t0
        await store.apply(Self.fix(t0, at: Self.away), from: Build.alice, retained: false, at: Build.date(t0))
        await store.apply(Self.fix(t0 + 100, at: Self.home), from: Build.alice, retained: false, at: Build.date(t0 + 100))
        var batch = await store.collectDue(at: Build.date(t0 + 130))
        #expect(!batch.events.contains { $0.event == .arrived })
        #expect(batch.nextDeadline == Build.date(t0 + 160))
        // No further fix: the dwell time passes in silence.
        batch = await store.collectDue(at: Build.date(t0 + 160))
        let arrived = batch.events.filter { $0.event == .arrived }
        #expect(arrived == [CircleEvent(circle: "family", user: "alice", device: "phone", event: .arrived, tst: t0 + 100, place: "Home")])
        let view = try #require(batch.views.first { $0.circle.id == "family" })
        #expect(view.places.map(\.name) == ["Home", "School"])
        #expect(view.member(user: "alice", device: "phone")?.place == "Home")
        #expect(view.member(user: "alice", device: "phone")?.placeSince == t0 + 100)
        #expect(await store.view(id: "work")?.member(user: "alice", device: "phone")?.place == nil)
        await store.apply(Self.fix(t0 + 400, at: Self.away), from: Build.alice, retained: false, at: Build.date(t0 + 400))
        batch = await store.collectDue(at: Build.date(t0 + 401))
        #expect(batch.events.filter { $0.place != nil } == [
            CircleEvent(circle: "family", user: "alice", device: "phone", event: .departed, tst: t0 + 400, place: "Home")
        ])
        #expect(await store.view(id: "family")?.member(user: "alice", device: "phone")?.place == nil)
    }

    @Test("The event's JSON names the place")
    func eventJSON() throws {
        let event = CircleEvent(circle: "family", user: "alice", device: "phone", event: .departed, tst: 5, place: "Home")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(event), as: UTF8.self)
        #expect(json == #"{"_type":"event","circle":"family","device":"phone","event":"departed","place":"Home","tst":5,"user":"alice"}"#)
    }

    @Test("A device's own transition (as the OwnTracks apps send it) for a region named like a place counts at once")
    func deviceTransition() async throws {
        let store = try Self.store()
        let decoder = MessageDecoder(settings: ViewSettings())
        let payload = Array(OwnTracksPayloads.androidTransition(event: "enter", region: "home", tst: Build.t0).utf8)
        let message = try decoder.decode(payload, now: Build.date(Build.t0 + 1))
        await store.apply(message, from: Build.alice, retained: false, at: Build.date(Build.t0 + 1))
        let batch = await store.collectDue(at: Build.date(Build.t0 + 2))
        #expect(batch.events.filter { $0.event == .arrived } == [
            CircleEvent(circle: "family", user: "alice", device: "phone", event: .arrived, tst: Build.t0, place: "Home")
        ])
        #expect(batch.events.filter { $0.event == .enter }.map(\.circle) == ["family", "work"])
        #expect(await store.view(id: "family")?.member(user: "alice", device: "phone")?.place == "Home")
    }

    @Test("A transition for a region that is no circle place changes no place and says so once in the log")
    func unknownRegion() async throws {
        let (logger, recorder) = Logger.capturing()
        let store = CircleViewStore(circles: try CirclesFile.parse(yaml: Self.yaml), logger: logger, now: Build.date(Build.t0 - 10))
        for tst in [Build.t0, Build.t0 + 1] {
            await store.apply(.transition(event: "enter", region: "Gym", tst: tst), from: Build.alice, retained: false, at: Build.date(tst))
        }
        let batch = await store.collectDue(at: Build.date(Build.t0 + 2))
        #expect(!batch.events.contains { $0.place != nil })
        #expect(batch.events.filter { $0.event == .enter }.count == 4, "the device's own region events still go out")
        #expect(await store.view(id: "family")?.member(user: "alice", device: "phone")?.place == nil)
        let notes = recorder.entries.filter { "\($0.message)".hasPrefix("A region transition names no place") }
        #expect(notes.count == 1)
        #expect(notes.first?.metadata["whereabouts.region"] == "Gym")
    }

    @Test("State the broker replays (retained) shows in the view but sends no event")
    func replayedIsQuiet() async throws {
        let store = try Self.store()
        await store.apply(Self.fix(Build.t0 - 3_600, at: Self.home), from: Build.alice, retained: true, at: Build.date(Build.t0))
        let batch = await store.collectDue(at: Build.date(Build.t0 + 1))
        #expect(!batch.events.contains { $0.place != nil })
        #expect(await store.view(id: "family", at: Build.date(Build.t0 + 1))?.member(user: "alice", device: "phone")?.place == "Home")
    }

    @Test("A reload that moves a place forgets who was there; unchanged places keep their members")
    func reload() async throws {
        let store = try Self.store()
        await store.apply(Self.fix(Build.t0, at: Self.home), from: Build.alice, retained: false, at: Build.date(Build.t0))
        _ = await store.collectDue(at: Build.date(Build.t0 + 60))
        #expect(await store.view(id: "family", at: Build.date(Build.t0 + 61))?.member(user: "alice", device: "phone")?.place == "Home")
        let unchanged = try CirclesFile.parse(yaml: Self.yaml.replacingOccurrences(of: "  - id: work", with: "  - id: work\n    name: Work"))
        _ = await store.replaceCircles(unchanged, at: Build.date(Build.t0 + 62))
        #expect(await store.view(id: "family", at: Build.date(Build.t0 + 63))?.member(user: "alice", device: "phone")?.place == "Home")
        let moved = try CirclesFile.parse(yaml: Self.yaml.replacingOccurrences(of: "radius: 100", with: "radius: 150"))
        _ = await store.replaceCircles(moved, at: Build.date(Build.t0 + 64))
        #expect(await store.view(id: "family", at: Build.date(Build.t0 + 65))?.member(user: "alice", device: "phone")?.place == nil)
    }
}
