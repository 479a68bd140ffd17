import Foundation
import Subscriber
import Testing
import WhereaboutsTestSupport

/// The real `whereabouts-sub` with `--users`, `--history` and the recommended outlier limits
/// (`--max-accuracy 5000 --max-speed 350`, the default future tolerance of 300 s): outliers sent
/// as the OwnTracks apps send locations are kept aside, shown nowhere, listed with their reason,
/// and restorable by the member and a circle admin only, audited.
@Suite("whereabouts-sub process: outliers kept aside and restored", .serialized)
struct OutliersProcessTests {
    static let enabled = LoginRig.executable != nil
    static let p = LoginRig.password

    /// An Android app's location (Jackson: keys in alphabetical order), as `OwnTracksPayloads`.
    static func android(tst: Int, lat: Double, lon: Double, acc: Int = 13) -> String {
        #"{"_type":"location","acc":\#(acc),"alt":57,"batt":91,"bs":1,"conn":"w","created_at":\#(tst + 3),"lat":\#(lat),"lon":\#(lon),"m":1,"t":"p","tid":"al","tst":\#(tst),"vac":2,"vel":0}"#
    }

    /// An iOS app's location in significant-changes mode with a cell-tower fix (`acc` kilometres).
    static func iosCoarse(tst: Int, acc: Int) -> String {
        #"{"_type":"location","acc":\#(acc),"alt":0,"batt":64,"bs":1,"conn":"m","created_at":\#(tst + 1),"lat":52.6701,"lon":-8.6102,"m":1,"p":101.325,"t":"t","tid":"al","topic":"owntracks/alice/phone","tst":\#(tst),"vac":0}"#
    }

    @Test("A future tst, an implied-speed jump and a poor acc are kept aside, shown nowhere, restored by member and admin in tst order, audited", .enabled(if: enabled))
    func keptAsideAndRestored() async throws {
        let rig = try await LoginRig.start(extraArguments: ["--max-accuracy", "5000", "--max-speed", "350"])
        do { try await Self.run(rig) } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    private static func run(_ rig: LoginRig) async throws {
        do {
            let now = Int(Date().timeIntervalSince1970)
            @Sendable func get(_ path: String, as user: String) async throws -> LoginHTTP.Answer {
                try await rig.http.get(path, user: user, password: Self.p)
            }
            // The rig stored alice once, in Limerick, about 30 s before now.
            let before = try await get("/api/0/locations?user=alice&device=phone&from=2000-01-01T00:00:00&to=2100-01-01T00:00:00", as: "alice")
            let first = try #require((before.object?["data"] as? [[String: Any]])?.first?["tst"] as? Int)
            let future = now + 3_600
            let jump = first + 5  // Dublin, 5 s after Limerick: about 35 km/s
            let coarse = first + 8
            let good = first + 15
            for payload in [
                Self.android(tst: future, lat: 52.6640, lon: -8.6268),
                Self.android(tst: jump, lat: 53.3498, lon: -6.2603),
                Self.iosCoarse(tst: coarse, acc: 20_000),
                Self.android(tst: good, lat: 52.6639, lon: -8.6266),
            ] {
                try await rig.publisher.publish(to: "owntracks/alice/phone", payload: Data(payload.utf8), qos: .atLeastOnce, retain: false)
            }
            @Sendable func post(_ path: String, as user: String) async throws -> LoginHTTP.Answer {
                try await rig.http.send(path, method: "POST", headers: ["Authorization: Basic \(Data("\(user):\(Self.p)".utf8).base64EncodedString())"])
            }
            let rejectedPath = "/api/0/rejected?user=alice&device=phone&from=2000-01-01T00:00:00&to=2100-01-01T00:00:00"
            @Sendable func rejected(as user: String = "alice") async throws -> [[String: Any]] {
                (try await get(rejectedPath, as: user).object?["data"] as? [[String: Any]]) ?? []
            }
            @Sendable func stored() async throws -> [Int] {
                let answer = try await get("/api/0/locations?user=alice&device=phone&from=2000-01-01T00:00:00&to=2100-01-01T00:00:00", as: "alice")
                return ((answer.object?["data"] as? [[String: Any]]) ?? []).compactMap { $0["tst"] as? Int }
            }
            try await waitUntil("the good fix and the three outliers stored", timeout: .seconds(20)) {
                let locations = try await stored()
                let aside = try await rejected()
                return locations.contains(good) && aside.count == 3
            }

            // Absent from every view and API.
            #expect(try await stored() == [first, good])
            let last = try await get("/api/0/last?user=alice&device=phone", as: "alice")
            #expect(last.array?.map { $0["tst"] as? Int } == [good])
            let view = try await get("/api/circles/family", as: "alice")
            let alice = ((view.object?["members"] as? [[String: Any]]) ?? []).first { $0["user"] as? String == "alice" }
            #expect((alice?["fix"] as? [String: Any])?["tst"] as? Int == good)
            let trail = try await get("/api/circles/family/members/alice/phone/trail", as: "alice")
            let trailTsts = ((trail.object?["trail"] as? [[String: Any]]) ?? []).compactMap { $0["tst"] as? Int }
            #expect(!trailTsts.isEmpty && trailTsts.allSatisfy { ![future, jump, coarse].contains($0) }, "\(trailTsts)")
            for body in [view.body, trail.body, last.body] { #expect(!body.contains("53.3498") && !body.contains("20000")) }

            // Listed with the reason, in the Recorder's location shape, sorted by tst.
            let list = try await rejected()
            #expect(list.map { $0["tst"] as? Int } == [jump, coarse, future])
            #expect(list.map { $0["reason"] as? String } == ["implied_speed", "poor_accuracy", "future_timestamp"])
            #expect(list[0]["lat"] as? Double == 53.3498 && list[0]["username"] as? String == "alice" && list[0]["device"] as? String == "phone")
            #expect(list[1]["acc"] as? Int == 20_000 && list[1]["tid"] as? String == "al" && (list[1]["isotst"] as? String)?.hasSuffix("Z") == true)
            #expect(list.allSatisfy { ($0["received_at"] as? Double).map { abs($0 - Double(now)) < 120 } == true })

            // carol (admin of work) and erin may not read alice's history: 404, exactly as for an unknown device.
            for user in ["carol", "erin"] {
                let refused = try await get(rejectedPath, as: user)
                #expect(refused.status == 404 && refused.error == "device_not_found", "\(user)")
                let restore = try await post("/api/0/rejected/restore?user=alice&device=phone&tst=\(jump)", as: user)
                #expect(restore.status == 404 && restore.error == "device_not_found", "\(user)")
            }
            // Without credentials: 401, like every route.
            #expect(try await rig.http.send(rejectedPath).status == 401)
            #expect(try await rig.http.send("/api/0/rejected/restore?user=alice&device=phone&tst=\(jump)", method: "POST").status == 401)
            let unknown = try await get("/api/0/rejected?user=alice&device=tablet", as: "alice")
            #expect(unknown.status == 404 && unknown.error == "device_not_found")
            #expect(try await post("/api/0/rejected/restore?user=alice&device=phone", as: "alice").error == "missing_parameter")
            #expect(try await post("/api/0/rejected/restore?user=alice&device=phone&tst=x", as: "alice").error == "bad_tst")
            #expect(try await rejected().count == 3, "nothing restored by refused requests")

            // alice restores the jump; bob (admin of family) the rest of the range: the future one stays.
            let one = try await post("/api/0/rejected/restore?user=alice&device=phone&tst=\(jump)", as: "alice")
            #expect(one.status == 200 && one.object?["restored"] as? Int == 1)
            #expect((one.object?["audit"] as? [String: Any])?["actor"] as? String == "alice")
            func stamp(_ seconds: Int) -> String { String(Date(timeIntervalSince1970: Double(seconds)).formatted(.iso8601).dropLast()) }
            let range = try await post("/api/0/rejected/restore?user=alice&device=phone&from=\(stamp(jump + 1))&to=\(stamp(future + 60))", as: "bob")
            #expect(range.status == 200 && range.object?["restored"] as? Int == 1 && range.object?["still_in_future"] as? Int == 1)
            #expect((range.object?["audit"] as? [String: Any])?["actor"] as? String == "bob")

            // In the history, in tst order; "last" does not go back to a restored older point.
            #expect(try await stored() == [first, jump, coarse, good])
            #expect(try await get("/api/0/last?user=alice&device=phone", as: "alice").array?.map { $0["tst"] as? Int } == [good])
            #expect(try await rejected().map { $0["tst"] as? Int } == [future])

            // Audited: newest first, no coordinates; carol sees none of it.
            let audit = try await get("/api/0/audit", as: "alice")
            let entries = (audit.object?["results"] as? [[String: Any]]) ?? []
            #expect(entries.map { $0["action"] as? String } == ["restore", "restore"])
            #expect(entries.map { $0["actor"] as? String } == ["bob", "alice"])
            #expect(entries.last?["from"] as? Int == jump && entries.last?["removed"] as? Int == 1)
            #expect(!audit.body.contains("\"lat\""))
            #expect((try await get("/api/0/audit", as: "carol").object?["results"] as? [Any])?.isEmpty == true)

            // Counted and logged by reason, never with coordinates.
            let log = rig.logText()
            for reason in ["implied_speed", "poor_accuracy", "future_timestamp"] { #expect(log.contains(reason), "\(reason)") }
            #expect(log.contains("Rejected locations restored into the history."))
            #expect(!log.contains("53.3498"))
        }
    }
}
