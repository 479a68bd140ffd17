import Subscriber
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// The real `whereabouts-sub` process, killed with SIGKILL and restarted, against a real mosquitto:
/// member statuses survive; `/metrics` and card faces are served over HTTP.
@Suite("whereabouts-sub process: statuses across kill -9, metrics and faces over HTTP")
struct SubscriberRestartProcessTests {
    static let executable = TestPaths.builtExecutable(named: "whereabouts-sub")

    private static func get(_ url: String, headers: [String: String] = [:]) async throws -> (Int, Data, [AnyHashable: Any]) {
        var request = URLRequest(url: try #require(URL(string: url)), timeoutInterval: 10)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, data, http.allHeaderFields)
    }

    @Test("An app member whose last will made it offline is still offline after kill -9 and a restart", .enabled(if: executable != nil))
    func statusSurvivesKill() async throws {
        let broker = try await Broker.start()
        let directory = try TestPaths.makeTemporaryDirectory()
        let circles = directory.appendingPathComponent("circles.yaml")
        try OwnTracksPayloads.circles.write(to: circles, atomically: true, encoding: .utf8)
        let statusFile = directory.appendingPathComponent("sub.status.json")
        let port = try FreePort.find()
        let arguments = [
            "--circles", circles.path, "--broker", "mqtt://\(broker.host):\(broker.port)", "--client-id", "sub-restart",
            "--view-interval", "0.1", "--state-file", statusFile.path, "--http-port", "\(port)",
        ]
        let probe = try await ViewProbe.start(broker: broker)
        let publisher = try await MQTTClient.connected(to: broker)

        let firstLog = directory.appendingPathComponent("first.log")
        let first = try ChildProcess.spawn(Self.executable!.path, arguments, logFile: firstLog)
        try await waitUntil("the first run's subscriptions") {
            ((try? String(contentsOf: firstLog, encoding: .utf8)) ?? "").contains("Subscribed to the circles' members.")
        }
        let now = Int(Date().timeIntervalSince1970)
        let base = "owntracks/Dave/handheld"
        try await publisher.publish(to: base, payload: Data(OwnTracksPayloads.androidLocation(tst: now - 1).utf8), qos: .atLeastOnce, retain: true)
        try await publisher.publish(to: base + "/info", payload: Data(OwnTracksPayloads.card(name: "Dave D.", face: OwnTracksPayloads.png).utf8),
                                    qos: .atLeastOnce, retain: true)
        _ = try await probe.member("friends", "Dave", "handheld") { $0.status == .online && $0.face != nil }
        try await publisher.publish(to: base, payload: Data(OwnTracksPayloads.lastWill(connectedAt: now - 3600).utf8), qos: .atLeastOnce, retain: false)
        _ = try await probe.member("friends", "Dave", "handheld") { $0.status == .offline }
        try await waitUntil("the status file to say offline") {
            ((try? String(contentsOf: statusFile, encoding: .utf8)) ?? "").contains(#""status":"offline""#)
        }
        first.signal(SIGKILL)
        _ = try await withTimeout(.seconds(10), "the killed subscriber") { await first.waitForExit() }

        let seen = try await probe.wait("the messages so far") { $0.messages.count }
        let secondLog = directory.appendingPathComponent("second.log")
        let second = try ChildProcess.spawn(Self.executable!.path, arguments, logFile: secondLog)
        @Sendable func secondText() -> String { (try? String(contentsOf: secondLog, encoding: .utf8)) ?? "" }
        // The restarted subscriber's first view, built after the broker replayed the retained fix and card.
        let view = try await probe.wait("a view from the restarted subscriber with the retained fix") { snapshot -> MemberView? in
            snapshot.messages.dropFirst(seen).compactMap { message -> MemberView? in
                guard message.topic == "whereabouts/circles/friends/view",
                      let view = try? JSONDecoder().decode(CircleView.self, from: message.payload) else { return nil }
                return view.member(user: "Dave", device: "handheld").flatMap { $0.fix != nil && $0.face != nil ? $0 : nil }
            }.last
        }
        #expect(view.status == .offline, "log:\n\(secondText())")
        #expect(secondText().contains("Restored member statuses."))

        // /metrics on the dashboard port, and the face once over HTTP with caching. The HTTP server
        // starts beside the subscriber, not before it: wait until it listens.
        try await waitUntil("the restarted subscriber's HTTP port") { (try? await Self.get("http://127.0.0.1:\(port)/healthz")) != nil }
        let (status, body, _) = try await Self.get("http://127.0.0.1:\(port)/metrics")
        let metrics = String(decoding: body, as: UTF8.self)
        #expect(status == 200)
        #expect(metrics.contains(#"whereabouts_sub_members{status="offline"} 1"#), "\(metrics)")
        #expect(metrics.contains("whereabouts_sub_views_published_total"))
        let faceURL = "http://127.0.0.1:\(port)/api/circles/friends/members/Dave/handheld/face?v=\(try #require(view.face))"
        let (faceStatus, face, headers) = try await Self.get(faceURL)
        #expect(faceStatus == 200 && Array(face) == OwnTracksPayloads.png)
        #expect((headers["Cache-Control"] as? String)?.contains("immutable") == true)
        let etag = try #require(headers["Etag"] as? String ?? headers["ETag"] as? String)
        let (revalidated, _, _) = try await Self.get(faceURL, headers: ["If-None-Match": etag])
        #expect(revalidated == 304)
        let (missing, _, _) = try await Self.get("http://127.0.0.1:\(port)/api/circles/friends/members/eve/iphone/face")
        #expect(missing == 404)

        second.signal(SIGTERM)
        let exit = try await withTimeout(.seconds(10), "the subscriber to exit") { await second.waitForExit() }
        #expect(exit == 0)
        await publisher.disconnect()
        await probe.stop()
        await broker.stop()
    }
}
