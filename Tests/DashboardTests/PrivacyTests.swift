import Subscriber
import Dashboard
import Foundation
import HummingbirdWSClient
import Logging
import ServiceLifecycle
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport
import SystemSupport

/// Privacy per circle, proven on the bytes: a real mosquitto, the subscriber and the dashboard as
/// `whereabouts-sub --http-port` runs them, a member publishing exact fixes with velocity and a
/// region transition, and everything a `coarse`, a `place` and a `hidden` audience can get over
/// MQTT (retained views, events, the circle's OwnTracks tree), HTTP (circle list, views, trail)
/// and the WebSocket (views, events) searched for finer coordinates.
@Suite("Privacy per circle")
struct PrivacyTests {
    static let yaml = """
        circles:
          - id: exact
            owntracks: true
            members:
              - {user: alice, device: phone}
            places:
              - {name: Home, lat: 52.6640, lon: -8.6270, radius: 300, dwell: 0}
          - id: coarse
            privacy: coarse
            grid: 1000
            owntracks: true
            members:
              - {user: alice, device: phone}
            places:
              - {name: Home, lat: 52.6640, lon: -8.6270, radius: 300, dwell: 0}
          - id: placeonly
            privacy: place
            owntracks: true
            members:
              - {user: alice, device: phone}
            places:
              - {name: Home, lat: 52.6640, lon: -8.6270, radius: 300, dwell: 0}
          - id: shy
            owntracks: true
            members:
              - {user: alice, device: phone, share: hidden}
        """

    /// Alice's fixes: a short walk home, with velocity, as the bounded policy sends them.
    static let fixes: [(lat: Double, lon: Double)] = [(52.663841, -8.626729), (52.663907, -8.626511), (52.663975, -8.626302)]

    /// The strings that would betray a position finer than the coarse grid: each fix's latitude
    /// and longitude cut to 4 decimals (about 10 m), as any JSON encoder prints their start.
    static let betraying: [String] = fixes.flatMap { [cut($0.lat), cut(abs($0.lon))] }

    static func cut(_ value: Double) -> String {
        let text = "\(value)"
        guard let dot = text.firstIndex(of: ".") else { return text }
        return String(text[..<(text.index(dot, offsetBy: 5, limitedBy: text.endIndex) ?? text.endIndex)])
    }

    @Test("A coarse or place-only audience never receives a finer coordinate, a velocity, a trail or a device region, over MQTT, HTTP or the WebSocket")
    func bytesAudited() async throws {
        // The test can fail: the coarse cell's centre is far from every fix, so no honest
        // snapping prints those digits.
        for fix in Self.fixes {
            let snapped = CoarseGridProbe.snap(lat: fix.lat, lon: fix.lon, grid: 1000)
            #expect(abs(snapped.lat - fix.lat) > 0.0002 && abs(snapped.lon - fix.lon) > 0.0002)
        }
        let broker = try await Broker.start()
        let logger = Logger.test("privacy", level: .warning)
        let file = try CirclesFile.parse(yaml: Self.yaml)
        let services = try await SubscriberDashboardGroup.connect(broker: broker, circles: file, clientID: "whereabouts-sub-privacy", logger: logger)
        let audience = MQTTClient(configuration: broker.clientConfiguration(clientID: "audience"), logger: logger)
        let captured = Captured()
        let messages = audience.messages
        let capture = Task { for await message in messages { captured.add(topic: message.topic, payload: message.payload) } }
        try await audience.connect()
        try await audience.subscribe(to: "whereabouts/circles/#", qos: .atLeastOnce, timeout: .seconds(10))
        // Each circle's OwnTracks tree has a root of its own (whereabouts-circles-<id>).
        for circle in ["exact", "coarse", "placeonly", "shy"] {
            try await audience.subscribe(to: "whereabouts-circles-\(circle)/#", qos: .atLeastOnce, timeout: .seconds(10))
        }
        let publisher = MQTTClient(configuration: broker.clientConfiguration(clientID: "alice-phone"), logger: logger)

        try await withTimeout(.seconds(60), "the privacy audit") {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await services.group.run() }
                let port = try await services.port()
                // A dashboard socket per circle, open before anything is published, so it gets
                // the events too.
                let (socketsOpen, socketOpened) = AsyncStream.makeStream(of: Void.self)
                for circle in ["exact", "coarse", "placeonly", "shy"] {
                    tasks.addTask {
                        _ = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/api/circles/\(circle)/ws", logger: logger) { inbound, _, _ in
                            var opened = false
                            for try await message in inbound.messages(maxSize: 1 << 22) {
                                if case .text(let text) = message { captured.add(topic: "ws/\(circle)/", payload: Data(text.utf8)) }
                                if !opened {
                                    opened = true
                                    socketOpened.yield()
                                }
                            }
                        }
                    }
                }
                var open = 0
                for await _ in socketsOpen {
                    open += 1
                    if open == 4 { break }
                }
                try await publisher.connect()
                let now = Int(Date().timeIntervalSince1970)
                for (index, fix) in Self.fixes.enumerated() {
                    let json = #"{"_type":"location","acc":8,"lat":\#(fix.lat),"lon":\#(fix.lon),"tid":"al","tst":\#(now - 3 + index),"t":"t","vel":6,"cog":70,"ve":1.61,"vn":0.59,"ms":60,"inregions":["Secret Garden"],"due":\#(now + 900)}"#
                    try await publisher.publish(to: "owntracks/alice/phone", payload: Data(json.utf8), qos: .atLeastOnce, retain: true, timeout: .seconds(10))
                }
                let transition = #"{"_type":"transition","acc":13.0,"desc":"Secret Garden","event":"enter","lat":52.663975,"lon":-8.626302,"t":"c","tid":"al","tst":\#(now),"wtst":\#(now - 86_400)}"#
                try await publisher.publish(to: "owntracks/alice/phone/event", payload: Data(transition.utf8), qos: .atLeastOnce, retain: false, timeout: .seconds(10))
                // Wait until every audience has its final state: the exact circle's region event,
                // and the place-only circle's view with Alice at Home.
                try await waitUntil("every circle's view and events", timeout: .seconds(20)) {
                    let all = captured.text(prefix: "whereabouts/circles/")
                    return all.contains("Secret Garden") && captured.text(prefix: "whereabouts/circles/placeonly/view").contains(#""place":"Home""#)
                        && captured.text(prefix: "whereabouts/circles/coarse/view").contains(#""status":"online""#)
                        && captured.text(prefix: "whereabouts/circles/shy/view").contains(#""status":"online""#)
                        && captured.text(prefix: "ws/exact/").contains("Secret Garden")
                        && captured.text(prefix: "ws/placeonly/").contains(#""place":"Home""#)
                        && captured.text(prefix: "ws/coarse/").contains(#""event":"arrived""#)
                        && captured.text(prefix: "whereabouts-circles-placeonly/").contains(#""inregions":["Home"]"#)
                        && captured.text(prefix: "whereabouts-circles-coarse/alice/phone/event").contains(#""event":"enter""#)
                        && captured.text(prefix: "whereabouts-circles-exact/").contains(#""vel":6"#)
                        && captured.text(prefix: "whereabouts-circles-shy/alice/phone/info").contains(#""_type":"card""#)
                }
                // HTTP: what the dashboard serves each audience.
                var http: [String: String] = [:]
                for circle in ["exact", "coarse", "placeonly", "shy"] {
                    for path in ["/api/circles", "/api/circles/\(circle)", "/api/circles/\(circle)/members/alice/phone/trail"] {
                        let answer = try await RawHTTP.send(port: port, ["GET \(path) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"])
                        #expect(answer.status == 200, "\(path): \(answer.text)")
                        http[circle, default: ""] += answer.body
                    }
                }
                // The exact audience gets it all: the audit would see a leak.
                let exact = captured.text(prefix: "whereabouts/circles/exact/") + captured.text(prefix: "whereabouts-circles-exact/")
                    + http["exact", default: ""] + captured.text(prefix: "ws/exact/")
                for digits in Self.betraying { #expect(exact.contains(digits), "the exact circle shows \(digits)") }
                #expect(exact.contains("Secret Garden") && exact.contains(#""ve":1.61"#))
                for circle in ["coarse", "placeonly", "shy"] {
                    let bytes = captured.text(prefix: "whereabouts/circles/\(circle)/") + captured.text(prefix: "whereabouts-circles-\(circle)/")
                        + http[circle, default: ""] + captured.text(prefix: "ws/\(circle)/")
                    #expect(captured.text(prefix: "ws/\(circle)/").contains(#""_type":"view""#))
                    #expect(!bytes.isEmpty)
                    for digits in Self.betraying { #expect(!bytes.contains(digits), "\(circle) leaks \(digits)") }
                    for secret in ["Secret Garden", #""ve":"#, #""vn":"#, #""vel":"#, #""cog":"#] {
                        #expect(!bytes.contains(secret), "\(circle) leaks \(secret)")
                    }
                    #expect(!bytes.contains(#""trail":[{"#), "\(circle) leaks a trail")
                    #expect(!bytes.contains(#""speed":1."#) && !bytes.contains(#""course":"#.appending("7")), "\(circle) leaks a speed or course")
                }
                let placeOnly = captured.text(prefix: "whereabouts/circles/placeonly/") + captured.text(prefix: "whereabouts-circles-placeonly/")
                    + http["placeonly", default: ""]
                #expect(!placeOnly.contains(#""fix":{"#) && !placeOnly.contains(#""display":{"#))
                #expect(placeOnly.contains(#""place":"Home""#))
                let shy = captured.text(prefix: "whereabouts/circles/shy/") + captured.text(prefix: "whereabouts-circles-shy/") + http["shy", default: ""]
                #expect(!shy.contains(#""fix":{"#) && !shy.contains("Home"))
                let coarse = captured.text(prefix: "whereabouts/circles/coarse/view")
                #expect(coarse.contains(#""fix":{"#) && coarse.contains(#""acc":1000"#))
                // The OwnTracks trees: a coarse friend on the grid, a place-only friend at the
                // place's centre, a hidden friend by name only.
                let coarseTree = captured.text(prefix: "whereabouts-circles-coarse/alice/phone")
                #expect(coarseTree.contains(#""_type":"location""#) && coarseTree.contains(#""acc":1000"#))
                let placeTree = captured.text(prefix: "whereabouts-circles-placeonly/alice/phone")
                #expect(placeTree.contains(#""lat":52.664,"#) && placeTree.contains(#""acc":300"#))
                let shyTree = captured.text(prefix: "whereabouts-circles-shy/")
                #expect(!shyTree.contains(#""_type":"location""#) && !shyTree.contains(#""_type":"transition""#))
                await publisher.disconnect()
                await services.group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
        }
        capture.cancel()
        await audience.disconnect()
        await services.client.disconnect()
        await broker.stop()
    }
}

/// Everything the audience client received, by topic.
final class Captured: Sendable {
    private let messages = LockedState<[(topic: String, text: String)]>([])

    func add(topic: String, payload: Data) {
        messages.withLock { $0.append((topic, String(decoding: payload, as: UTF8.self))) }
    }

    /// All payloads of topics starting with `prefix`, concatenated.
    func text(prefix: String) -> String {
        messages.withLock { $0.filter { $0.topic.hasPrefix(prefix) }.map(\.text).joined(separator: "\n") }
    }
}

/// The grid rule as docs/subscriber.md states it, computed independently of the subscriber's
/// `CoarseGrid`: cell centres at multiples of the grid in metres of latitude and of the snapped
/// latitude's parallel.
enum CoarseGridProbe {
    static func snap(lat: Double, lon: Double, grid: Double) -> (lat: Double, lon: Double) {
        let perDegree = Geodesy.earthRadius * .pi / 180
        let latStep = grid / perDegree
        let snappedLat = ((lat / latStep).rounded(.down) + 0.5) * latStep
        let lonStep = grid / (perDegree * cos(snappedLat * .pi / 180))
        return (snappedLat, ((lon / lonStep).rounded(.down) + 0.5) * lonStep)
    }
}
