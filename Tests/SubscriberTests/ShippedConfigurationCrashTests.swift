import Subscriber
import Foundation
import Provisioning
import Logging
import Synchronization
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// The shipped production configurations (`broker/mosquitto-prod.conf` with a password file and
/// the generated ACL, `broker/mosquitto-dynsec.conf` with accounts made by `DynamicSecuritySync`)
/// with a member whose name is capitalised, as the OwnTracks apps send it (`owntracks/Eve/iPhone`),
/// the real `whereabouts-pub` logged in as that member, and the broker killed with `kill -9` after
/// every report was acknowledged (issue 24, items 4 and 6).
///
/// Before: the publisher lower-cased its topic (`owntracks/eve/iphone`), which the generated
/// access control does not grant to `Eve`: mosquitto acknowledged and dropped every report. And
/// `mosquitto-dynsec.conf` saved every 30 s: a kill -9 lost every queued report and the retained
/// location.
@Suite("Shipped broker configurations with a capitalised member, under kill -9", .serialized,
       .enabled(if: TestPaths.builtExecutable(named: "whereabouts-pub") != nil))
struct ShippedConfigurationCrashTests {
    static let circles = """
        circles:
          - id: family
            name: Family
            members:
              - user: Eve
                device: iPhone
        """
    static let topic = "owntracks/Eve/iPhone"
    static let track = TestPaths.fixtures.appendingPathComponent("publisher/drive-240s.gpx").path

    /// A started broker and the accounts the publisher and the subscriber log in with.
    struct Setup {
        var broker: ShippedBroker
        /// The publisher's broker account and the file holding its password.
        var publisher: (username: String, passwordFile: String)
        var subscriber: MQTTConfiguration.Credentials
    }

    @Test("Every acknowledged report of the member Eve is queued for the offline subscriber and survives kill -9, and so does the retained location",
          arguments: ["prod", "dynsec"])
    func capitalisedMemberSurvivesKill(config: String) async throws {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "shipped-\(config)")
        defer { try? FileManager.default.removeItem(at: directory) }
        guard let setup = try await Self.start(config, in: directory) else { return }
        let broker = setup.broker
        #expect(broker.configuration.contains("autosave_on_changes true"), "the shipped \(config) configuration saves on every change")

        // The subscriber's persistent session exists and goes offline: the broker queues for it.
        var subscriber = MQTTConfiguration(host: broker.host, port: broker.port, clientID: "whereabouts-sub", cleanSession: false)
        subscriber.credentials = setup.subscriber
        subscriber.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(500))
        let first = MQTTClient(configuration: subscriber, logger: .test("sub"))
        try await first.connect()
        try await first.subscribe(to: "owntracks/#", qos: .atLeastOnce)
        await first.disconnect()

        // The real publisher, logged in as Eve's account; it exits 0 once the broker acknowledged
        // every report of the recording.
        let log = directory.appendingPathComponent("pub.log")
        let publisher = try ChildProcess.spawn(try #require(TestPaths.builtExecutable(named: "whereabouts-pub")).path, [
            "--source", "gpx:\(Self.track)", "--replay-speed", "max", "--user", "Eve", "--device", "iPhone",
            "--broker", "mqtt://\(broker.host):\(broker.port)", "--username", setup.publisher.username,
            "--password-file", setup.publisher.passwordFile,
            "--outbox", directory.appendingPathComponent("outbox.sqlite").path, "--log-level", "debug",
            "--power-supply-path", directory.appendingPathComponent("no-sysfs").path, "--policy", "interval", "--interval", "2",
        ], logFile: log)
        defer { publisher.signal(SIGKILL) }
        let status = try await withTimeout(.seconds(90), "whereabouts-pub to drain and exit") { await publisher.waitForExit() }
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(status == 0, "the publisher drained its outbox: \(text.suffix(1500))")
        #expect(text.contains(Self.topic), "it publishes on the topic as typed")
        let sent = loggedTimestamps(in: text, of: "Report committed.")
        try #require(sent.count >= 50, "reports committed: \(sent.count)")

        await broker.kill()
        try await broker.start()
        let arrived = try await queuedLocationTimestamps(on: Self.topic, configuration: subscriber, expecting: sent, timeout: .seconds(30))
        let missing = sent.subtracting(arrived)
        if !missing.isEmpty {
            Issue.record("\(missing.count) of \(sent.count) acknowledged reports lost with \(config): \(broker.log.suffix(1500))")
        }

        // The retained location is the newest report, read with the subscriber's account.
        var fresh = subscriber
        fresh.cleanSession = true
        let retainedClient = MQTTClient(configuration: fresh, logger: .test("retained"))
        let retainedMessages = retainedClient.messages
        try await retainedClient.connect()
        try await retainedClient.subscribe(to: Self.topic, qos: .atLeastOnce)
        let retained = try await retainedMessages.next(timeout: .seconds(5))
        await retainedClient.disconnect()
        #expect(retained.retained)
        #expect(try JSONDecoder().decode(LocationMessage.self, from: retained.payload).tst == sent.max())
        await broker.kill()
    }

    /// Starts `config` with Eve's and the subscriber's accounts, or `nil` when the machine lacks
    /// the dynamic security plugin.
    static func start(_ config: String, in directory: URL) async throws -> Setup? {
        let file = try CirclesFile.parse(yaml: circles)
        switch config {
        case "prod":
            let passwd = directory.appendingPathComponent("passwd").path
            let acl = directory.appendingPathComponent("acl")
            try AccessControlList(circles: file.circles).render().write(to: acl, atomically: true, encoding: .utf8)
            #expect(try String(contentsOf: acl, encoding: .utf8).contains("user Eve\ntopic readwrite owntracks/Eve/#"))
            try await Tools.run("/usr/bin/mosquitto_passwd", ["-c", "-b", passwd, "Eve", "eve-pw"])
            try await Tools.run("/usr/bin/mosquitto_passwd", ["-b", passwd, "whereabouts-sub", "sub-pw"])
            let evePassword = directory.appendingPathComponent("eve-password")
            try "eve-pw\n".write(to: evePassword, atomically: true, encoding: .utf8)
            let broker = try ShippedBroker(config: "prod", files: ["password_file": passwd, "acl_file": acl.path])
            try await broker.start()
            return Setup(broker: broker, publisher: ("Eve", evePassword.path), subscriber: .init(username: "whereabouts-sub", password: "sub-pw"))
        default:
            guard let plugin = DynamicSecurityBroker.pluginPath else { return nil }
            let json = directory.appendingPathComponent("dynamic-security.json").path
            try await Tools.run("/usr/bin/mosquitto_ctrl", ["dynsec", "init", json, "admin", "admin-pw"])
            let broker = try ShippedBroker(config: "dynsec", files: ["plugin": plugin, "plugin_opt_config_file": json])
            try await broker.start()
            var logger = Logger(label: "dynsec")
            logger.logLevel = .warning
            let admin = MQTTClient(
                configuration: MQTTConfiguration(host: broker.host, port: broker.port, clientID: "admin",
                                                 credentials: .init(username: "admin", password: "admin-pw")),
                logger: logger)
            try await admin.connect()
            let passwords = directory.appendingPathComponent("passwords")
            try FileManager.default.createDirectory(at: passwords, withIntermediateDirectories: true)
            let sync = DynamicSecuritySync(
                control: DynamicSecurityControl(client: admin),
                settings: .init(reservedUsers: ["admin"], passwordDirectory: passwords.path), logger: logger)
            _ = try await sync.apply(file)
            await admin.disconnect()
            let account = OwnTracksName.deviceAccount(user: "Eve", device: "iPhone")
            #expect(account == "whereabouts-Eve-iPhone")
            let subscriberPassword = try String(contentsOf: passwords.appendingPathComponent("whereabouts-sub"), encoding: .utf8)
                .split(separator: "\n").first.map(String.init)
            return Setup(broker: broker, publisher: (account, passwords.appendingPathComponent(account).path),
                         subscriber: .init(username: "whereabouts-sub", password: subscriberPassword))
        }
    }
}
