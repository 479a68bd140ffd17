import Foundation
import Outbox
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport
import Logging

/// End-to-end tests: the real whereabouts-pub binary against a real mosquitto.
@Suite("Publisher with a real broker", .serialized, .enabled(if: PublisherProcess.executable != nil))
struct PublisherIntegrationTests {
    static let track = TestPaths.fixtures.appendingPathComponent("publisher/drive-240s.gpx").path
    /// The topic keeps --user Alice --device Phone as given (OwnTracksName).
    static let topic = "owntracks/Alice/Phone"
    static let policy = ["--policy", "bounded", "--epsilon", "50"]
    static let busyPolicy = ["--policy", "interval", "--interval", "2"]

    /// The publisher's arguments for a replay of the drive fixture.
    func arguments(broker: Broker, outbox: URL, speed: String = "max", policy: [String] = Self.policy, powerSupply: URL? = nil) -> [String] {
        ["--source", "gpx:\(Self.track)", "--replay-speed", speed, "--user", "Alice", "--device", "Phone", "--tid", "al",
         "--broker", "mqtt://\(broker.host):\(broker.port)", "--outbox", outbox.path, "--log-level", "debug",
         "--power-supply-path", (powerSupply ?? outbox.deletingLastPathComponent().appendingPathComponent("no-sysfs")).path,
         "--battery-interval", "1"]
            + policy
    }

    @Test("A replay at max speed publishes every report whereabouts-eval lists, and retains the last")
    func replayMatchesEval() async throws {
        let broker = try await Broker.start()
        let dir = try TestPaths.makeTemporaryDirectory(prefix: "pub-replay")
        let expected = try await evalReports(track: Self.track, policyArguments: Self.policy, directory: dir)
        try #require(expected.count > 5)
        let recorder = try await Recorder(broker: broker)
        let pub = try PublisherProcess(arguments: arguments(broker: broker, outbox: dir.appendingPathComponent("outbox.sqlite")),
                                       logFile: dir.appendingPathComponent("pub.log"))
        #expect(try await pub.waitForExit(timeout: .seconds(60)) == 0, "a finished replay exits 0\n\(pub.log)")
        try await recorder.waitUntil("every report") { messages in
            Set(messages.compactMap { try? JSONDecoder().decode(LocationMessage.self, from: $0.payload).tst }).count >= expected.count
        }
        let received = recorder.locations(on: Self.topic).map(\.message)
        #expect(received.map(\.tst) == expected.map(\.tst), "exactly the evaluator's reports, in order, once each")
        for (message, report) in zip(received, expected) {
            #expect(message.lat == report.lat && message.lon == report.lon && message.t == report.trigger)
            #expect(message.tid == "al" && message.acc > 0 && message.m == 2)
        }
        let retained = try await retainedMessage(on: Self.topic, broker: broker)
        let last = try JSONDecoder().decode(LocationMessage.self, from: retained.payload)
        #expect(retained.retained)
        #expect(last.tst == expected.last?.tst && last.lat == expected.last?.lat && last.lon == expected.last?.lon)
        // Clean exit: presence says offline, retained.
        let presence = try await retainedMessage(on: Self.topic + "/presence", broker: broker)
        let state = try JSONDecoder().decode(PresenceMessage.self, from: presence.payload)
        #expect(state.state == .offline)
        #expect(state.type == "lwt", "a type Home Assistant accepts without a warning")
        await recorder.stop()
        await broker.stop()
    }

    @Test("Killed with SIGKILL ten times during a replay (four of them while the broker is down), every committed report still arrives")
    func killNineTimesTen() async throws {
        let broker = try await Broker.start(Broker.Options(persistence: true))
        let dir = try TestPaths.makeTemporaryDirectory(prefix: "pub-kill")
        let outbox = dir.appendingPathComponent("outbox.sqlite")
        let recorder = try await Recorder(broker: broker)
        let log = dir.appendingPathComponent("pub.log")
        var generator = SystemRandomNumberGenerator()
        var committed = Set<Int>()
        for round in 0..<10 {
            // Rounds 3 to 6 run without a broker, so the killed processes leave reports in the outbox.
            if round == 3 { await broker.stop() }
            if round == 7 { try await broker.restart() }
            // The interval policy reports every other fix, so the outbox is busy at every kill.
            let pub = try PublisherProcess(arguments: arguments(broker: broker, outbox: outbox, speed: "20", policy: Self.busyPolicy), logFile: log)
            // A random moment once the process has its outbox open (start-up time varies with load).
            try await pub.waitForLogCount("Outbox opened.", atLeast: round + 1)
            try await Task.sleep(for: .milliseconds(Int.random(in: 50...1200, using: &generator)))
            pub.signal(SIGKILL)
            _ = try await pub.waitForExit(timeout: .seconds(10))
            // What the killed process left in the outbox must arrive after a restart.
            let left = try Outbox(path: outbox.path, logger: Logger(label: "test"))
            committed.formUnion(try await left.oldest(limit: 100_000).map(\.tst))
        }
        let last = try PublisherProcess(arguments: arguments(broker: broker, outbox: outbox, speed: "max", policy: Self.busyPolicy), logFile: log)
        #expect(try await last.waitForExit(timeout: .seconds(60)) == 0)
        committed.formUnion(loggedTimestamps(in: last.log, of: "Report committed."))
        committed.formUnion(loggedTimestamps(in: (try? String(contentsOf: log, encoding: .utf8)) ?? "", of: "Report committed."))
        try #require(committed.count >= 60, "the runs together committed most of the track's 120 reports")
        let mustArrive = committed
        do {
            try await recorder.waitUntil("every committed report", timeout: .seconds(30)) { messages in
                let arrived = Set(messages.compactMap { try? JSONDecoder().decode(LocationMessage.self, from: $0.payload).tst })
                return mustArrive.isSubset(of: arrived)
            }
        } catch {
            // Say which reports are missing, and what the publishers logged about them.
            let arrived = Set(recorder.locations(on: Self.topic).map(\.message.tst))
            let missing = mustArrive.subtracting(arrived).sorted()
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            let lines = text.split(separator: "\n").filter { line in missing.contains { line.contains("whereabouts.tst=\($0)") } }
            Issue.record("\(missing.count) committed reports never arrived: \(missing)\n\(lines.prefix(20).joined(separator: "\n"))")
            throw error
        }
        let arrived = Set(recorder.locations(on: Self.topic).map(\.message.tst))
        #expect(committed.subtracting(arrived).isEmpty)
        #expect((arrived.max() ?? 0) >= 1_700_000_200, "the replays reached the end of the track")
        // The killed connections' wills: OwnTracks' LWT on the base topic (never retained) and offline presence.
        let wills = recorder.messages.filter { $0.topic == Self.topic && ($0.payloadString ?? "").contains(#""_type":"lwt""#) }
        #expect(!wills.isEmpty, "a killed publisher's LWT arrives")
        #expect(wills.allSatisfy { !$0.retained })
        #expect(recorder.messages.contains { $0.topic == Self.topic + "/presence" && ($0.payloadString ?? "").contains("offline") })
        await recorder.stop()
        await broker.stop()
    }

    @Test("SIGTERM with the broker unreachable: drains for --drain-timeout, keeps the backlog, exits 0")
    func drainTimeout() async throws {
        let dir = try TestPaths.makeTemporaryDirectory(prefix: "pub-drain")
        let outbox = dir.appendingPathComponent("o.sqlite")
        let closedPort = try FreePort.find()
        let pub = try PublisherProcess(arguments: [
            "--source", "gpx:\(Self.track)", "--replay-speed", "max", "--user", "alice", "--device", "phone",
            "--broker", "mqtt://127.0.0.1:\(closedPort)", "--outbox", outbox.path, "--drain-timeout", "1",
            "--power-supply-path", dir.path] + Self.policy, logFile: dir.appendingPathComponent("pub.log"))
        // The replay ends, but with nowhere to publish the process waits with a full outbox.
        try await pub.waitForLog("The position source ended")
        #expect(pub.process.isRunning, "a finished source does not end the process while reports wait")
        let started = ContinuousClock.now
        pub.signal(SIGTERM)
        #expect(try await pub.waitForExit(timeout: .seconds(15)) == 0)
        #expect(ContinuousClock.now - started < .seconds(8), "the drain timeout bounds the shutdown")
        #expect(pub.log.contains("Drain timeout reached"))
        let left = try Outbox(path: outbox.path, logger: Logger(label: "test"))
        #expect(left.depth > 5, "the backlog stays for the next start")
    }

    @Test("The broker stopped mid-replay and started again: nothing lost, first arrivals in order, newest retained")
    func brokerOutage() async throws {
        let broker = try await Broker.start(Broker.Options(persistence: true))
        let dir = try TestPaths.makeTemporaryDirectory(prefix: "pub-outage")
        let expected = try await evalReports(track: Self.track, policyArguments: Self.policy, directory: dir)
        let recorder = try await Recorder(broker: broker)
        let pub = try PublisherProcess(arguments: arguments(broker: broker, outbox: dir.appendingPathComponent("o.sqlite"), speed: "40"),
                                       logFile: dir.appendingPathComponent("pub.log"))
        try await recorder.waitUntil("the first reports") { $0.filter { $0.topic == Self.topic }.count >= 3 }
        await broker.stop()
        try await pub.waitForLog("Disconnected.", timeout: .seconds(10))
        try await Task.sleep(for: .seconds(2))  // the outage itself: fixes pile up in the outbox meanwhile
        try await broker.restart()
        #expect(try await pub.waitForExit(timeout: .seconds(60)) == 0, "\(pub.log)")
        try await recorder.waitUntil("every report after the outage", timeout: .seconds(20)) { messages in
            Set(messages.compactMap { try? JSONDecoder().decode(LocationMessage.self, from: $0.payload).tst }).count >= expected.count
        }
        let received = recorder.locations(on: Self.topic)
        var firstArrivals: [Int] = []
        for (message, _) in received where !firstArrivals.contains(message.tst) { firstArrivals.append(message.tst) }
        #expect(firstArrivals == expected.map(\.tst), "each report arrives, first arrivals in order")
        #expect(received.contains { ($0.message.createdAt ?? 0) > $0.message.tst },
                "backlog is marked with created_at later than tst")
        let retained = try await retainedMessage(on: Self.topic, broker: broker)
        #expect(try JSONDecoder().decode(LocationMessage.self, from: retained.payload).tst == expected.last?.tst)
        await recorder.stop()
        await broker.stop()
    }

    @Test("A malformed command on /cmd is rejected with a log line and changes nothing; signals, commands and the battery switch profiles")
    func malformedCommand() async throws {
        let broker = try await Broker.start()
        let dir = try TestPaths.makeTemporaryDirectory(prefix: "pub-cmd")
        // A fake /sys/class/power_supply: one battery at 50 %, unplugged.
        let sysfs = dir.appendingPathComponent("power_supply")
        let battery = sysfs.appendingPathComponent("BAT0")
        try FileManager.default.createDirectory(at: battery, withIntermediateDirectories: true)
        for (name, value) in [("type", "Battery"), ("capacity", "50"), ("status", "Discharging")] {
            try (value + "\n").write(to: battery.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let recorder = try await Recorder(broker: broker)
        let pub = try PublisherProcess(
            arguments: arguments(broker: broker, outbox: dir.appendingPathComponent("o.sqlite"), speed: "1", powerSupply: sysfs),
            logFile: dir.appendingPathComponent("pub.log"))
        try await recorder.waitUntil("online presence and a first location") { messages in
            messages.contains { $0.topic == Self.topic + "/presence" && $0.payloadString?.contains("online") == true }
                && messages.contains { $0.topic == Self.topic }
        }
        try await pub.waitForLog("Connected.")
        let commander = MQTTClient(configuration: broker.clientConfiguration(clientID: "commander"), logger: .test("cmd"))
        try await commander.connect()
        try await commander.publish(to: Self.topic + "/cmd", payload: #"{"_type":"cmd","action":"setProfile","profile":"turbo"}"#)
        try await commander.publish(to: Self.topic + "/cmd", payload: "{not json")
        try await pub.waitForLogCount("Command rejected.", atLeast: 2)
        #expect(pub.log.contains("turbo"), "the log line names what was wrong")
        #expect(!pub.log.contains("Profile switched."))
        // Still active: a reportLocation answers at once with trigger r (as the apps do), monitoring mode 2 and the battery.
        try await commander.publish(to: Self.topic + "/cmd", payload: #"{"_type":"cmd","action":"reportLocation"}"#)
        try await recorder.waitUntil("the requested report") { messages in
            messages.contains { ($0.payloadString ?? "").contains(#""t":"r""#) }
        }
        let requested = recorder.locations(on: Self.topic).map(\.message).first { $0.t == "r" }
        #expect(requested?.m == 2)
        #expect(requested?.batt == 50 && requested?.bs == 1)
        // SIGUSR1 selects significant, a setConfiguration with monitoring 2 active again.
        pub.signal(SIGUSR1)
        try await pub.waitForLog("whereabouts.reason=SIGUSR1")
        try await commander.publish(to: Self.topic + "/cmd", payload: #"{"_type":"cmd","action":"setConfiguration","configuration":{"monitoring":2}}"#)
        try await pub.waitForLogCount("Profile switched.", atLeast: 2)
        #expect(pub.log.contains("whereabouts.reason=command"))
        // The battery drops to 10 %: significant is forced.
        try "10\n".write(to: battery.appendingPathComponent("capacity"), atomically: true, encoding: .utf8)
        try await pub.waitForLog("Battery low.")
        try await pub.waitForLog("whereabouts.reason=battery")
        await commander.disconnect()
        pub.signal(SIGTERM)
        #expect(try await pub.waitForExit(timeout: .seconds(20)) == 0)
        #expect(pub.log.contains("Disconnected cleanly."))
        let presence = try await retainedMessage(on: Self.topic + "/presence", broker: broker)
        #expect(try JSONDecoder().decode(PresenceMessage.self, from: presence.payload).state == .offline)
        await recorder.stop()
        await broker.stop()
    }
}
