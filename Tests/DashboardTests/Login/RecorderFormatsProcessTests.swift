import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import HummingbirdWSClient
import Logging
import Subscriber
import Synchronization
import Testing
import WhereaboutsTestSupport

/// The real `whereabouts-sub` with `--users` and a history of 12,001 stored points: every
/// `/api/0/locations` format across page boundaries, `/ws/last`, and hostile input.
@Suite("whereabouts-sub process: Recorder API formats, /ws/last and bad input", .serialized)
struct RecorderFormatsProcessTests {
    static let enabled = LoginRig.executable != nil
    static let p = LoginRig.password
    /// 12,001 points of alice/phone, one a second, ending about 50 minutes ago (inside the
    /// default six hours), more than two pages of ``RecorderStream`` (5,000).
    static func prefill() -> [(MemberID, [Int])] {
        let start = Int(Date().timeIntervalSince1970) - 15_000
        return [(MemberID(user: "alice", device: "phone"), Array(start..<(start + 12_001)))]
    }

    @Test("Every format carries the whole range sorted by tst, in the Recorder's shapes, across pages", .enabled(if: enabled))
    func formats() async throws {
        try await LoginRig.with(prefill: Self.prefill()) { rig in
            let base = "/api/0/locations?user=alice&device=phone"
            let total = 12_002  // the prefill and the location the rig publishes

            let json = try await rig.http.get(base, user: "alice", password: Self.p)
            #expect(json.status == 200 && json.headers["content-type"]?.hasPrefix("application/json") == true)
            let object = try #require(json.object)
            #expect(object["count"] as? Int == total && object["status"] as? Int == 200)
            let tsts = ((object["data"] as? [[String: Any]]) ?? []).compactMap { $0["tst"] as? Int }
            #expect(tsts.count == total && zip(tsts, tsts.dropFirst()).allSatisfy { $0 < $1 })

            let csv = try await rig.http.get(base + "&format=csv", user: "alice", password: Self.p)
            #expect(csv.status == 200 && csv.headers["content-type"]?.hasPrefix("text/csv") == true)
            #expect(csv.headers["content-disposition"] == "attachment; filename=\"alice-phone.csv\"")
            let lines = csv.body.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(lines.first == "tst,isotst,lat,lon,acc,alt,vac,vel,cog,batt,tid,t,m,username,device")
            #expect(lines.count == total + 1)
            #expect(lines.dropFirst().allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == 15 })
            let csvTsts = lines.dropFirst().compactMap { Int($0.prefix { $0 != "," }) }
            #expect(csvTsts == tsts)
            let picked = try await rig.http.get(base + "&format=csv&fields=tst,lat,lon&limit=2", user: "alice", password: Self.p)
            let pickedLines = picked.body.split(separator: "\n")
            #expect(pickedLines.first == "tst,lat,lon" && pickedLines.count == 3)
            #expect(pickedLines.dropFirst().first == "\(tsts[0]),52.0,-8.6")

            let gpx = try await rig.http.get(base + "&format=gpx", user: "alice", password: Self.p)
            #expect(gpx.status == 200 && gpx.headers["content-type"]?.hasPrefix("application/gpx+xml") == true)
            let points = GPXPoints()
            let parser = XMLParser(data: Data(gpx.body.utf8))
            parser.delegate = points
            #expect(parser.parse(), "the GPX is well-formed XML: \(String(describing: parser.parserError))")
            #expect(points.count == total && points.times.count == total && points.root == "gpx")
            #expect(points.times == points.times.sorted())

            let geojson = try await rig.http.get(base + "&format=geojson", user: "alice", password: Self.p)
            let collection = try #require(geojson.object)
            let features = (collection["features"] as? [[String: Any]]) ?? []
            #expect(collection["type"] as? String == "FeatureCollection" && features.count == total)
            let first = try #require(features.first)
            #expect((first["geometry"] as? [String: Any])?["type"] as? String == "Point")
            #expect((first["geometry"] as? [String: Any])?["coordinates"] as? [Double] == [-8.6, 52.0], "[lon, lat], as the Recorder")
            #expect((first["properties"] as? [String: Any])?["name"] as? String == "pf")

            let line = try await rig.http.get(base + "&format=linestring", user: "alice", password: Self.p)
            let feature = try #require(line.object)
            let geometry = try #require(feature["geometry"] as? [String: Any])
            #expect(feature["type"] as? String == "Feature" && geometry["type"] as? String == "LineString")
            #expect((geometry["coordinates"] as? [[Double]])?.count == total)

            for limit in [1_999, 2_000, 2_001, 4_001, 4_999, 5_000, 5_001, 10_000] {  // around chunks of 2,000 and the old pages of 5,000
                let limited = try await rig.http.get(base + "&format=linestring&limit=\(limit)", user: "alice", password: Self.p)
                #expect(((limited.object?["geometry"] as? [String: Any])?["coordinates"] as? [[Double]])?.count == limit, "limit \(limit)")
            }
            // An admin of family reads alice's GPX; carol (work) gets 404 in every format.
            #expect(try await rig.http.get(base + "&format=gpx", user: "bob", password: Self.p).status == 200)
            for format in ["json", "csv", "gpx", "geojson", "linestring"] {
                let refused = try await rig.http.get(base + "&format=\(format)", user: "carol", password: Self.p)
                #expect(refused.status == 404 && refused.error == "device_not_found", "\(format)")
            }
        }
    }

    @Test("/ws/last: LAST answers each readable device's newest fix, then new ones come; never another's", .enabled(if: enabled))
    func webSocketLast() async throws {
        try await LoginRig.with { rig in
            let logger = Logger(label: "RecorderFormatsProcessTests")
            let url = "ws://127.0.0.1:\(rig.http.port)/ws/last"
            await #expect(throws: (any Error).self) {
                try await withTimeout(.seconds(30), "the upgrade without login") {
                    _ = try await WebSocketClient.connect(url: url, logger: logger) { _, _, _ in Issue.record("an upgrade without login succeeded") }
                }
            }
            @Sendable func token(_ user: String) async throws -> String {
                let answer = try await rig.http.send("/api/login", method: "POST", headers: ["Content-Type: application/json"],
                                                    body: #"{"user":"\#(user)","password":"\#(Self.p)"}"#)
                return try #require(answer.object?["token"] as? String)
            }
            let received = Mutex<[String]>([])
            let fresh = Int(Date().timeIntervalSince1970)
            try await withTimeout(.seconds(30), "alice's /ws/last") {
                _ = try await WebSocketClient.connect(
                    url: url, configuration: .init(additionalHeaders: [.authorization: "Bearer \(try await token("alice"))"]), logger: logger
                ) { inbound, outbound, _ in
                    try await outbound.write(.text("LAST"))
                    var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
                    var answeredLast = false
                    while case .text(let text)? = try await messages.next() {
                        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
                        let topic = object["topic"] as? String ?? "?"
                        received.withLock { $0.append("\(topic) \(object["tst"] as? Int ?? 0)") }
                        #expect(object["_type"] as? String == "location" && object["lat"] as? Double != nil)
                        if !answeredLast {
                            answeredLast = true
                            // Carol's fix first, then alice's: alice's must come, carol's never.
                            try await rig.publishLocation("owntracks/carol/laptop", tst: fresh)
                            try await rig.publishLocation("owntracks/alice/phone", tst: fresh)
                        }
                        if topic == "owntracks/alice/phone", object["tst"] as? Int == fresh { return }
                    }
                }
            }
            let messages = received.withLock { $0 }
            #expect(messages.count == 2, "\(messages)")
            #expect(messages.allSatisfy { $0.hasPrefix("owntracks/alice/phone ") }, "\(messages)")

            // bob administers family: LAST gives alice's and his own newest.
            let bobs = try await withTimeout(.seconds(30), "bob's LAST") {
                let topics = Mutex<[String]>([])
                _ = try await WebSocketClient.connect(
                    url: url, configuration: .init(additionalHeaders: [.authorization: "Bearer \(try await token("bob"))"]), logger: logger
                ) { inbound, outbound, _ in
                    try await outbound.write(.text("LAST"))
                    var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
                    while topics.withLock({ $0.count }) < 2, case .text(let text)? = try await messages.next() {
                        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                        topics.withLock { $0.append(object?["topic"] as? String ?? "?") }
                    }
                }
                return topics.withLock { $0 }
            }
            #expect(Set(bobs) == ["owntracks/alice/phone", "owntracks/bob/phone"])
        }
    }

    @Test("Corrections: one point or a range deleted by the member or an admin, audited; refused to others", .enabled(if: enabled))
    func corrections() async throws {
        let start = Int(Date().timeIntervalSince1970) - 7_200
        let tsts = Array(stride(from: start, to: start + 100 * 60, by: 60))  // 100 points, a minute apart
        try await LoginRig.with(prefill: [(MemberID(user: "alice", device: "phone"), tsts)]) { rig in
            func count(_ user: String) async throws -> Int? {
                let answer = try await rig.http.get("/api/0/locations?user=alice&device=phone&from=2000-01-01", user: user, password: Self.p)
                return answer.object?["count"] as? Int
            }
            func delete(_ query: String, as user: String) async throws -> LoginHTTP.Answer {
                try await rig.http.send("/api/0/locations?" + query, method: "DELETE", headers: [
                    "Authorization: Basic \(Data("\(user):\(Self.p)".utf8).base64EncodedString())"])
            }
            let before = try #require(try await count("alice"))
            #expect(before == 101)
            // carol may not read alice's history, so she cannot delete it either: 404 as if unknown.
            let refused = try await delete("user=alice&device=phone&tst=\(tsts[0])", as: "carol")
            #expect(refused.status == 404 && refused.error == "device_not_found")
            // Nothing is deleted by default: a range needs both ends.
            let vague = try await delete("user=alice&device=phone", as: "alice")
            #expect(vague.status == 400 && vague.error == "missing_parameter")
            #expect(try await delete("user=alice&device=phone&tst=abc", as: "alice").error == "bad_tst")
            // alice deletes one point of her own; bob (admin of family) a range of ten.
            let one = try await delete("user=alice&device=phone&tst=\(tsts[5])", as: "alice")
            #expect(one.status == 200 && one.object?["removed"] as? Int == 1 && one.object?["actor"] as? String == "alice")
            func stamp(_ seconds: Int) -> String { String(Date(timeIntervalSince1970: Double(seconds)).formatted(.iso8601).dropLast()) }
            let range = try await delete("user=alice&device=phone&from=\(stamp(tsts[10]))&to=\(stamp(tsts[19]))", as: "bob")
            #expect(range.status == 200 && range.object?["removed"] as? Int == 10 && range.object?["actor"] as? String == "bob")
            #expect(try await count("alice") == before - 11)
            let remaining = try await rig.http.get("/api/0/locations?user=alice&device=phone&from=2000-01-01&format=csv&fields=tst", user: "alice", password: Self.p)
            let kept = Set(remaining.body.split(separator: "\n").dropFirst().compactMap { Int($0) })
            #expect(!kept.contains(tsts[5]) && tsts[10...19].allSatisfy { !kept.contains($0) } && kept.contains(tsts[9]) && kept.contains(tsts[20]))
            // The audit log: newest first, without coordinates; carol sees none of it.
            let audit = try await rig.http.get("/api/0/audit", user: "alice", password: Self.p)
            let entries = (audit.object?["results"] as? [[String: Any]]) ?? []
            #expect(entries.map { $0["actor"] as? String } == ["bob", "alice"])
            #expect(entries.first?["from"] as? Int == tsts[10] && entries.first?["to"] as? Int == tsts[19] && entries.first?["client"] as? String == "127.0.0.1")
            #expect(!audit.body.contains("\"lat\""))
            #expect((try await rig.http.get("/api/0/audit", user: "carol", password: Self.p).object?["results"] as? [Any])?.isEmpty == true)
            #expect(rig.logText().contains("History locations deleted."))
        }
    }

    @Test("Bad input gets a 4xx JSON error that tells nothing about members the caller cannot see", .enabled(if: enabled))
    func badInput() async throws {
        try await LoginRig.with { rig in
            let hugeName = String(repeating: "x", count: 6_000)
            for (path, status, code) in [
                ("/api/0/locations?user=alice&device=phone&from=2026-02-30", 400, "bad_date"),
                ("/api/0/locations?user=alice&device=phone&from=2026-01-01T25:00:00", 400, "bad_date"),
                ("/api/0/locations?user=alice&device=phone&to=99999-01-01", 400, "bad_date"),
                ("/api/0/locations?user=alice&device=phone&from=2026-01-01T00:00:00%2B02:00", 400, "bad_date"),
                ("/api/0/locations?user=alice&device=phone&from=2026-01-02&to=2026-01-01", 400, "bad_range"),
                ("/api/0/locations?user=alice&device=phone&limit=0", 400, "bad_limit"),
                ("/api/0/locations?user=alice&device=phone&limit=1000001", 400, "bad_limit"),
                ("/api/0/locations?user=alice&device=phone&limit=1e9", 400, "bad_limit"),
                ("/api/0/locations?user=alice&device=phone&format=kml", 400, "bad_format"),
                ("/api/0/locations?user=alice", 400, "missing_parameter"),
                ("/api/0/locations?user=../carol&device=laptop", 404, "device_not_found"),
                ("/api/0/locations?user=carol%00&device=laptop", 404, "device_not_found"),
                ("/api/0/locations?user=\(hugeName)&device=phone", 404, "device_not_found"),
                ("/api/0/list?user=carol", 404, "user_not_found"),
                ("/api/0/list?user=%25", 404, "user_not_found"),
                ("/api/0/locations/../../etc/passwd", 404, "not_found"),
                ("/api/circles/..%2Fwork", 404, "circle_not_found"),
                ("/api/circles/work%00", 404, "circle_not_found"),
                ("/api/circles/work/members/carol/laptop/trail/../../../../family", 404, "not_found"),
                ("/api/circles/family/members/carol/laptop/trail", 404, "member_not_found"),
            ] {
                let answer = try await rig.http.get(path, user: "alice", password: Self.p)
                #expect(answer.status == status, "\(path.prefix(120)): \(answer.body.prefix(300))")
                #expect(answer.error == code, "\(path.prefix(120)): \(answer.body.prefix(300))")
                #expect(answer.headers["content-type"]?.hasPrefix("application/json") == true, "\(path.prefix(120))")
                #expect(answer.body.count < 1_000, "the error does not echo input at length: \(path.prefix(60))")
                #expect(!answer.body.contains("52.66") && !answer.body.contains("laptop\",") && !answer.body.contains("\"lat\""), "\(path.prefix(120))")
            }
            // Nothing of carol's, whatever alice asks for.
            for path in ["/api/0/list", "/api/0/last", "/api/0/last?user=carol", "/api/0/last?user=carol&device=laptop", "/api/circles"] {
                let answer = try await rig.http.get(path, user: "alice", password: Self.p)
                #expect(answer.status == 200 && !answer.body.contains("carol"), "\(path): \(answer.body.prefix(300))")
            }
        }
    }
}

/// Counts a GPX file's track points and their times.
private final class GPXPoints: NSObject, XMLParserDelegate {
    var count = 0
    var times: [String] = []
    var root: String?
    private var inTime = false
    private var text = ""

    func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        if root == nil { root = element }
        if element == "trkpt", attributes["lat"].flatMap(Double.init) != nil, attributes["lon"].flatMap(Double.init) != nil { count += 1 }
        inTime = element == "time"
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if inTime { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        if element == "time" { times.append(text) }
        inTime = false
    }
}
