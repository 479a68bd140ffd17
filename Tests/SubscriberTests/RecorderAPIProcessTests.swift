import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// The real `whereabouts-sub --history --http-port`, asked exactly what the OwnTracks Frontend
/// asks (its `src/api.js`: version, list, list?user=, last, locations with from/to/user/device/
/// format=json), and hostile requests.
@Suite("whereabouts-sub process: the OwnTracks Recorder API over the history")
struct RecorderAPIProcessTests {
    static let executable = TestPaths.builtExecutable(named: "whereabouts-sub")

    private static func get(_ url: String) async throws -> (Int, Any?) {
        let request = URLRequest(url: try #require(URL(string: url)), timeoutInterval: 10)
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, try? JSONSerialization.jsonObject(with: data))
    }

    @Test("The Frontend's calls get the Recorder's shapes, sorted by tst; bad input gets a 4xx JSON error", .enabled(if: executable != nil))
    func frontendCalls() async throws {
        let broker = try await Broker.start()
        let directory = try TestPaths.makeTemporaryDirectory()
        let circles = directory.appendingPathComponent("circles.yaml")
        try OwnTracksPayloads.circles.write(to: circles, atomically: true, encoding: .utf8)
        let port = try FreePort.find()
        let log = directory.appendingPathComponent("sub.log")
        let sub = try ChildProcess.spawn(Self.executable!.path, [
            "--circles", circles.path, "--broker", "mqtt://\(broker.host):\(broker.port)", "--client-id", "sub-recorder",
            "--state-file", "none", "--history", directory.appendingPathComponent("history.sqlite").path, "--http-port", "\(port)",
        ], logFile: log)
        try await waitUntil("the subscriptions") {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("Subscribed to the circles' members.")
        }
        let publisher = try await MQTTClient.connected(to: broker)
        let now = Int(Date().timeIntervalSince1970)
        let tsts = [now - 60, now - 300, now - 120, now - 8 * 3600]  // out of order; one older than six hours
        for tst in tsts {
            try await publisher.publish(to: "owntracks/Dave/handheld", payload: Data(OwnTracksPayloads.androidLocation(tst: tst).utf8),
                                        qos: .atLeastOnce, retain: false)
        }
        let base = "http://127.0.0.1:\(port)"
        try await waitUntil("the fixes in the history") {
            let (status, body) = (try? await Self.get("\(base)/api/0/last")) ?? (0, nil)
            return status == 200 && ((body as? [[String: Any]])?.first?["tst"] as? Int) == now - 60
        }

        let (_, version) = try await Self.get("\(base)/api/0/version")
        #expect(((version as? [String: Any])?["version"] as? String)?.isEmpty == false)
        let (_, users) = try await Self.get("\(base)/api/0/list")
        #expect((users as? [String: Any])?["results"] as? [String] == ["Dave"])
        let (_, devices) = try await Self.get("\(base)/api/0/list?user=Dave")
        #expect((devices as? [String: Any])?["results"] as? [String] == ["handheld"])
        let (_, last) = try await Self.get("\(base)/api/0/last?user=Dave&device=handheld")
        let newest = try #require((last as? [[String: Any]])?.first)
        #expect(newest["_type"] as? String == "location" && newest["username"] as? String == "Dave" && newest["device"] as? String == "handheld")
        #expect(newest["topic"] as? String == "owntracks/Dave/handheld" && newest["tid"] as? String != nil)
        #expect(newest["lat"] as? Double != nil && newest["lon"] as? Double != nil && newest["acc"] as? Int != nil)
        #expect((newest["isotst"] as? String)?.hasSuffix("Z") == true)
        let (_, trimmed) = try await Self.get("\(base)/api/0/last?fields=tst,tid")
        #expect(((trimmed as? [[String: Any]])?.first.map { Set($0.keys) }) == ["tst", "tid"])

        // The Frontend's history call: from/to in UTC, user, device, format=json; reads `data`.
        func stamp(_ seconds: Int) -> String { String(Date(timeIntervalSince1970: Double(seconds)).formatted(.iso8601).dropLast()) }
        let (status, body) = try await Self.get(
            "\(base)/api/0/locations?from=\(stamp(now - 3600))&to=\(stamp(now))&user=Dave&device=handheld&format=json")
        let json = try #require(body as? [String: Any])
        #expect(status == 200 && json["status"] as? Int == 200 && json["count"] as? Int == 3)
        #expect((json["data"] as? [[String: Any]])?.compactMap { $0["tst"] as? Int } == [now - 300, now - 120, now - 60])
        // Default range: the last six hours (the eight-hour-old fix is not in it).
        let (_, recent) = try await Self.get("\(base)/api/0/locations?user=Dave&device=handheld")
        #expect((recent as? [String: Any])?["count"] as? Int == 3)
        let (_, limited) = try await Self.get("\(base)/api/0/locations?user=Dave&device=handheld&limit=1&from=2000-01-01")
        #expect(((limited as? [String: Any])?["data"] as? [[String: Any]])?.first?["tst"] as? Int == now - 8 * 3600)

        for (query, expected, code) in [
            ("locations?user=Dave&device=handheld&from=2026-13-45T99:00:00", 400, "bad_date"),
            ("locations?user=Dave&device=handheld&from=yesterday", 400, "bad_date"),
            ("locations?user=Dave&device=handheld&from=2020-01-02&to=2020-01-01", 400, "bad_range"),
            ("locations?user=Dave&device=handheld&limit=99999999999999999999", 400, "bad_limit"),
            ("locations?user=Dave&device=handheld&limit=-1", 400, "bad_limit"),
            ("locations?user=Dave", 400, "missing_parameter"),
            ("locations?user=eve&device=iphone", 404, "device_not_found"),
            ("locations?user=Dave'%20OR%201=1--&device=handheld", 404, "device_not_found"),
            ("list?user=nobody", 404, "user_not_found"),
            ("locations?user=Dave&device=handheld&format=yaml", 400, "bad_format"),
        ] {
            let (status, body) = try await Self.get("\(base)/api/0/\(query)")
            #expect(status == expected, "\(query)")
            #expect((body as? [String: Any])?["error"] as? String == code, "\(query): \(String(describing: body))")
        }

        sub.signal(SIGTERM)
        _ = try await withTimeout(.seconds(10), "the subscriber to exit") { await sub.waitForExit() }
        await publisher.disconnect()
        await broker.stop()
    }
}
