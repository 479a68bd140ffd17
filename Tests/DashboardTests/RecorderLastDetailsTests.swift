@testable import Dashboard
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Hummingbird
import HummingbirdTesting
import Logging
@testable import Subscriber
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// Issue 25: what the OwnTracks Frontend shows was missing. `/api/0/last` lacked the card's
/// `name` and `face` (the Recorder merges them), `inregions`, `SSID`/`BSSID` and `poi`; GeoJSON
/// points lacked `acc`, `alt` and `vel`; `format=xml` was a 400. Messages here are shaped field
/// for field as the apps send them (owntracks/android `MessageLocation`, `MessageCard`; the iOS
/// app's `poi`), through the subscriber's real ingest.
@Suite("Recorder API: /last merges what the Recorder merges; GeoJSON and XML as the Recorder writes them")
struct RecorderLastDetailsTests {
    /// A 1×1 PNG, as a card's base64 `face`.
    static let face = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

    static func ingest(_ json: String, topic: String, into store: CircleViewStore) async {
        let ingestor = Ingestor(store: store, router: TopicRouter(), settings: await store.settings)
        _ = await ingestor.handle(MQTTMessage(topic: topic, payload: Data(json.utf8), retained: false))
        _ = await store.collectDue()
    }

    /// A dashboard over `store` with alice/phone's location at `tst` (and bob/car's) in the history.
    static func withAPI(store: CircleViewStore, tst: Int, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let directory = try TestPaths.makeTemporaryDirectory()
        var logger = Logger(label: "RecorderLastDetailsTests")
        logger.logLevel = .critical
        var fix = LocationMessage(tid: "al", tst: tst, lat: 52.6638, lon: -8.6267, acc: 14)
        fix.alt = 80; fix.vel = 12; fix.batt = 81
        var configuration = DashboardConfiguration(port: 0)
        configuration.history = try await Fixtures.history([
            HistoryRow.location(Fixtures.alice.id, fix, receivedAt: Double(tst)),
            HistoryRow.location(Fixtures.bob.id, LocationMessage(tid: "bo", tst: tst - 5, lat: 52.66, lon: -8.62, acc: 30), receivedAt: Double(tst)),
        ], in: directory, logger: logger)
        let app = DashboardApplication.make(source: store, configuration: configuration, logger: logger)
        try await app.test(.router) { client in try await body(client) }
    }

    static func lastObjects(_ client: any TestClientProtocol, query: String = "") async throws -> [String: [String: Any]] {
        try await client.execute(uri: "/api/0/last" + query, method: .get) { response in
            #expect(response.status == .ok)
            let array = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [[String: Any]], "\(String(buffer: response.body))")
            var byUser: [String: [String: Any]] = [:]
            for object in array { byUser[object["username"] as? String ?? "?"] = object }
            return byUser
        }
    }

    @Test("/last carries the card's name and face, the regions, and the live fix's SSID, BSSID and poi")
    func lastDetails() async throws {
        let store = await Fixtures.store()
        let tst = Int(Date().timeIntervalSince1970) - 2
        // The Android app's card (MessageCard) and location (MessageLocation) with Wi-Fi and regions, and the iOS app's poi.
        await Self.ingest(#"{"_type":"card","name":"Alice Liddell","face":"\#(Self.face)","tid":"al"}"#, topic: "owntracks/alice/phone/info", into: store)
        await Self.ingest(
            #"{"_type":"location","BSSID":"b0:f2:8:45:94:33","SSID":"Home Wifi","acc":14,"alt":80,"batt":81,"bs":1,"conn":"w","created_at":\#(tst),"inregions":["Home"],"inrids":["5f3b0a"],"lat":52.6638,"lon":-8.6267,"m":1,"poi":"Front door","t":"u","tid":"al","tst":\#(tst),"vac":1,"vel":12}"#,
            topic: "owntracks/alice/phone", into: store)
        try await Self.withAPI(store: store, tst: tst) { client in
            let last = try await Self.lastObjects(client)
            let alice = try #require(last["alice"])
            #expect(alice["name"] as? String == "Alice Liddell")
            #expect(alice["face"] as? String == Self.face)
            #expect(alice["inregions"] as? [String] == ["Home"])
            #expect(alice["SSID"] as? String == "Home Wifi" && alice["BSSID"] as? String == "b0:f2:8:45:94:33")
            #expect(alice["poi"] as? String == "Front door")
            #expect(alice["tst"] as? Int == tst && alice["acc"] as? Int == 14)
            // bob sent no card and no such keys: his object is as before.
            let bob = try #require(last["bob"])
            #expect(bob["name"] == nil && bob["SSID"] == nil && bob["inregions"] == nil)
            // fields= limits the merged keys too.
            let some = try #require(try await Self.lastObjects(client, query: "?fields=tst,name,SSID,username")["alice"])
            #expect(Set(some.keys) == ["tst", "name", "SSID", "username"], "\(some)")
        }
        // The history's newest is not the live fix (say, a restore made it newer): the live fix's
        // own keys stay out, the card stays in.
        try await Self.withAPI(store: store, tst: tst + 60) { client in
            let alice = try #require(try await Self.lastObjects(client)["alice"])
            #expect(alice["name"] as? String == "Alice Liddell")
            #expect(alice["SSID"] == nil && alice["BSSID"] == nil && alice["poi"] == nil)
        }
    }

    @Test("GeoJSON points carry acc, alt and vel; format=xml is an <owntracks> document of <point> elements")
    func formats() async throws {
        let store = await Fixtures.store()
        let tst = Int(Date().timeIntervalSince1970) - 60
        try await Self.withAPI(store: store, tst: tst) { client in
            let query = "/api/0/locations?user=alice&device=phone&from=2020-01-01"
            try await client.execute(uri: query + "&format=geojson", method: .get) { response in
                let object = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                let feature = try #require((object["features"] as? [[String: Any]])?.first)
                let properties = try #require(feature["properties"] as? [String: Any])
                #expect(properties["acc"] as? Int == 14 && properties["alt"] as? Int == 80 && properties["vel"] as? Int == 12, "\(properties)")
                #expect(properties["name"] as? String == "al" && properties["tst"] as? Int == tst)
            }
            try await client.execute(uri: query + "&format=xml", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("application/xml") == true)
                #expect(response.headers[.contentDisposition]?.contains("alice-phone.xml") == true)
                let collector = PointCollector()
                let parser = XMLParser(data: Data(buffer: response.body))
                parser.delegate = collector
                #expect(parser.parse(), "\(String(buffer: response.body))")
                #expect(collector.root == "owntracks")
                let point = try #require(collector.points.first)
                #expect(collector.points.count == 1)
                #expect(point["tst"] == "\(tst)" && point["lat"] == "52.6638" && point["lon"] == "-8.6267" && point["acc"] == "14" && point["alt"] == "80")
                #expect(point["username"] == "alice" && point["device"] == "phone" && point["tid"] == "al" && point["topic"] == "owntracks/alice/phone")
            }
            try await client.execute(uri: query + "&format=xml&fields=tst,lat", method: .get) { response in
                // As the Recorder's xml_output: a child element per key, one per line.
                #expect(String(buffer: response.body).contains(" <point>\n  <lat>52.6638</lat>\n  <tst>\(tst)</tst>\n </point>\n"), "\(String(buffer: response.body))")
            }
        }
    }

    /// The root element's name and the child elements of each `point` (name: text).
    final class PointCollector: NSObject, XMLParserDelegate {
        var root: String?
        var points: [[String: String]] = []
        private var element: String?
        private var text = ""

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            if root == nil {
                root = name
            } else if name == "point" {
                points.append([:])
            } else {
                element = name
                text = ""
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if element != nil { text += string }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            guard let element, element == name, !points.isEmpty else { return }
            points[points.count - 1][name] = text
            self.element = nil
        }
    }
}
