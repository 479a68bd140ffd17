import Foundation
import Logging
@testable import Subscriber
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// `whereabouts-sub passwd` failed while setting up.
struct PasswdFailed: Error, CustomStringConvertible {
    var description: String
}

/// A real mosquitto and the real `whereabouts-sub` with `--users`, `--history` and the dashboard,
/// two circles and four accounts made with the real `whereabouts-sub passwd`:
/// - `family`: alice/phone, bob/phone; `work`: carol/laptop, bob/phone (who shares only
///   `coarse` with work).
/// - alice (member of family, derived from the circles file), bob (admin of family), carol
///   (admin of work), erin (listed in work explicitly, no device of her own).
struct LoginRig {
    static let executable = TestPaths.builtExecutable(named: "whereabouts-sub")
    static let password = "correct horse battery"

    static let circles = """
        circles:
          - id: family
            name: Family
            members:
              - user: alice
                device: phone
              - user: bob
                device: phone
          - id: work
            name: Work
            members:
              - user: carol
                device: laptop
              - user: bob
                device: phone
                share: coarse
        """

    let broker: Broker
    let sub: ChildProcess
    let directory: URL
    let log: URL
    let http: LoginHTTP
    let publisher: MQTTClient

    /// The users file.
    var users: URL { directory.appendingPathComponent("users.yaml") }

    /// Runs `whereabouts-sub passwd` for `user` with `password` on standard input.
    static func passwd(_ users: URL, user: String, password: String, extra: [String] = []) async throws -> ToolRun.Output {
        try await ToolRun.run(executable!.path, ["passwd", "--users", users.path, "--user", user, "--cost", "4"] + extra,
                              input: Data((password + "\n").utf8))
    }

    /// Starts everything; the subscriber has stored one location of alice, bob and carol.
    static func start(extraArguments: [String] = [], prefill: [(MemberID, [Int])] = []) async throws -> LoginRig {
        let broker = try await Broker.start()
        let directory = try TestPaths.makeTemporaryDirectory()
        let circlesFile = directory.appendingPathComponent("circles.yaml")
        try circles.write(to: circlesFile, atomically: true, encoding: .utf8)
        let users = directory.appendingPathComponent("users.yaml")
        for user in ["alice", "bob", "carol", "erin"] {
            let result = try await passwd(users, user: user, password: password)
            guard result.status == 0 else { throw PasswdFailed(description: "passwd \(user): \(result.stderr)") }
        }
        // Roles: what an operator adds by hand next to the hashes passwd wrote.
        var text = try String(contentsOf: users, encoding: .utf8)
        text = text.replacingOccurrences(of: "  \"bob\":\n", with: "  \"bob\":\n    admin: [family]\n")
        text = text.replacingOccurrences(of: "  \"carol\":\n", with: "  \"carol\":\n    admin: [work]\n")
        text = text.replacingOccurrences(of: "  \"erin\":\n", with: "  \"erin\":\n    circles: [work]\n")
        try text.write(to: users, atomically: true, encoding: .utf8)

        if !prefill.isEmpty {
            // Stored before the subscriber opens the file, as if received earlier.
            let store = try HistoryStore(path: directory.appendingPathComponent("history.sqlite").path, logger: Logger(label: "prefill"))
            for (member, tsts) in prefill {
                let rows = tsts.enumerated().map { index, tst in
                    HistoryRow.location(member, LocationMessage(tid: "pf", tst: tst, lat: 52 + Double(index) * 1e-5, lon: -8.6, acc: 10), receivedAt: Double(tst))
                }
                for start in stride(from: 0, to: rows.count, by: 10_000) { _ = try await store.write(Array(rows[start..<min(start + 10_000, rows.count)])) }
            }
        }
        let port = try FreePort.find()
        let log = directory.appendingPathComponent("sub.log")
        let sub = try ChildProcess.spawn(executable!.path, [
            "--circles", circlesFile.path, "--broker", "mqtt://\(broker.host):\(broker.port)", "--client-id", "sub-login",
            "--state-file", "none", "--history", directory.appendingPathComponent("history.sqlite").path,
            "--http-port", "\(port)", "--users", users.path, "--view-interval", "0.05",
        ] + extraArguments, logFile: log)
        try await waitUntil("the subscriptions") {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            return text.contains("Subscribed to the circles' members.") && text.contains("Dashboard listening")
        }
        let publisher = MQTTClient(configuration: broker.clientConfiguration(clientID: "pub-login"), logger: .test("pub"))
        try await publisher.connect()
        let rig = LoginRig(broker: broker, sub: sub, directory: directory, log: log, http: LoginHTTP(port: port), publisher: publisher)
        let now = Int(Date().timeIntervalSince1970)
        for (topic, tst) in [("owntracks/alice/phone", now - 30), ("owntracks/bob/phone", now - 20), ("owntracks/carol/laptop", now - 10)] {
            try await rig.publishLocation(topic, tst: tst)
        }
        try await waitUntil("three members in the history", timeout: .seconds(20)) {
            let answer = try await rig.http.get("/api/0/last", user: "bob", password: password)
            // bob sees alice and himself; carol's fix arrived last, so wait for it through the log-free route:
            guard answer.status == 200, answer.array?.count == 2 else { return false }
            let carol = try await rig.http.get("/api/0/last", user: "carol", password: password)
            return carol.array?.count == 1
        }
        return rig
    }

    /// Starts a rig, runs `body` with it and stops it, whether `body` throws or not.
    static func with(prefill: [(MemberID, [Int])] = [], _ body: (LoginRig) async throws -> Void) async throws {
        let rig = try await start(prefill: prefill)
        do { try await body(rig) } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    /// Publishes an OwnTracks location (as the Android app sends it) on `topic`.
    func publishLocation(_ topic: String, tst: Int, lat: Double = 52.6638, lon: Double = -8.6267) async throws {
        let payload = #"{"_type":"location","acc":13,"alt":57,"batt":91,"bs":1,"conn":"w","created_at":\#(tst + 3),"lat":\#(lat),"lon":\#(lon),"m":1,"t":"p","tid":"xx","tst":\#(tst),"vac":2,"vel":0}"#
        try await publisher.publish(to: topic, payload: Data(payload.utf8), qos: .atLeastOnce, retain: false)
    }

    /// The subscriber's log so far.
    func logText() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    func stop() async {
        sub.signal(SIGTERM)
        _ = try? await withTimeout(.seconds(10), "the subscriber to exit") { await sub.waitForExit() }
        await publisher.disconnect()
        await broker.stop()
    }
}
