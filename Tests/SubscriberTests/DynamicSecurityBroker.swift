import Subscriber
import Foundation
@testable import Provisioning
import Logging
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// A real mosquitto with the dynamic security plugin (`mosquitto_ctrl dynsec init` makes its
/// admin account), brought to the accounts of a circles file by ``DynamicSecuritySync``.
enum DynamicSecurityBroker {
    static let pluginPath = [
        "/usr/lib/x86_64-linux-gnu/mosquitto_dynamic_security.so", "/usr/lib/aarch64-linux-gnu/mosquitto_dynamic_security.so",
        "/usr/lib/mosquitto_dynamic_security.so",
    ].first { FileManager.default.fileExists(atPath: $0) }

    /// The password files the generator reads and writes.
    struct Passwords: Sendable {
        let directory: URL

        func exists(_ account: String) -> Bool {
            FileManager.default.fileExists(atPath: directory.appendingPathComponent(account).path)
        }

        func callAsFunction(_ account: String) throws -> String {
            let text = try String(contentsOf: directory.appendingPathComponent(account), encoding: .utf8)
            return String(text.split(separator: "\n").first ?? "")
        }

        /// Waits (at most 20 s) for the generator to write the account's password file.
        func waitFor(_ account: String) async throws -> String {
            try await DynamicSecurityBroker.eventually("the password file of \(account)") { exists(account) }
            return try self(account)
        }
    }

    static func circlesPath(_ broker: Broker) -> URL { broker.directory.appendingPathComponent("circles.yaml") }

    static func rewrite(circles yaml: String, in broker: Broker) async throws {
        try yaml.write(to: circlesPath(broker), atomically: true, encoding: .utf8)
    }

    /// Checks `condition` every 50 ms until it holds, at most `timeout` (for effects of polling
    /// that have no event to await: a file the watcher writes, an account the broker changes).
    static func eventually(_ what: String, timeout: Duration = .seconds(20), _ condition: @escaping @Sendable () async throws -> Bool) async throws {
        try await withTimeout(timeout, what) {
            while try await !condition() { try await Task.sleep(for: .milliseconds(50)) }
        }
    }

    /// Runs `body` with the broker and the password files once the circles are applied (and,
    /// with `watch`, while the watcher keeps applying changes).
    static func with(
        circles yaml: String, watch: Bool = false,
        _ body: @escaping @Sendable (Broker, Passwords) async throws -> Void
    ) async throws {
        guard let pluginPath else { return }
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "dynsec")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = directory.appendingPathComponent("dynamic-security.json")
        try await Tools.run("/usr/bin/mosquitto_ctrl", ["dynsec", "init", configuration.path, "admin", "admin-pw"])
        let passwords = Passwords(directory: directory.appendingPathComponent("passwords"))
        try FileManager.default.createDirectory(at: passwords.directory, withIntermediateDirectories: true)

        let broker = try await Broker.start(.init(
            allowAnonymous: false, extraConfiguration: "plugin \(pluginPath)\nplugin_opt_config_file \(configuration.path)"))
        try yaml.write(to: circlesPath(broker), atomically: true, encoding: .utf8)
        var logger = Logger(label: "dynsec")
        logger.logLevel = .warning
        let admin = MQTTClient(
            configuration: broker.clientConfiguration(clientID: "admin", credentials: .init(username: "admin", password: "admin-pw")),
            logger: logger)
        try await admin.connect()
        let sync = DynamicSecuritySync(
            control: DynamicSecurityControl(client: admin),
            settings: .init(operatorUsers: ["ops"], reservedUsers: ["admin"], passwordDirectory: passwords.directory.path),
            logger: logger)
        do {
            if watch {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { await sync.watch(path: circlesPath(broker).path, pollInterval: 0.2) }
                    _ = try await passwords.waitFor("whereabouts-sub")
                    try await body(broker, passwords)
                    group.cancelAll()
                }
            } else {
                let outcome = try await sync.apply(try CirclesFile.load(path: circlesPath(broker).path))
                precondition(outcome.warnings.contains { $0.contains("'admin'") }, "the unbound admin account is reported")
                try await body(broker, passwords)
            }
        } catch {
            await admin.disconnect()
            await broker.stop()
            throw error
        }
        await admin.disconnect()
        await broker.stop()
    }
}

/// The real mosquitto command-line clients, each bounded by its own `-W` timeout.
enum Tools {
    struct Output {
        var status: Int32
        var output: String
    }

    /// Runs a tool off the cooperative pool (``ToolRun``); its standard output, then its errors.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) async throws -> Output {
        let result = try await ToolRun.run(executable, arguments)
        return Output(status: result.status, output: result.stdout + result.stderr)
    }

    /// `mosquitto_sub` as `account` under `clientID` (`clean: false` keeps a persistent session),
    /// QoS 1; ends after `count` messages (0: no limit) or `wait` seconds.
    static func sub(
        _ broker: Broker, account: (String, String), clientID: String, clean: Bool, topic: String, count: Int, wait: Int
    ) async throws -> Output {
        var arguments = ["-h", broker.host, "-p", "\(broker.port)", "-u", account.0, "-P", account.1, "-i", clientID,
                         "-q", "1", "-t", topic, "-W", "\(wait)"]
        if !clean { arguments.append("-c") }
        if count > 0 { arguments += ["-C", "\(count)"] }
        // The test runner's threads block signals and children inherit the mask, so mosquitto_sub's
        // own -W alarm never fires: timeout(1) ends it with SIGKILL, which cannot be blocked.
        return try await run("/usr/bin/timeout", ["-s", "KILL", "\(wait + 1)", "/usr/bin/mosquitto_sub"] + arguments)
    }

    /// `mosquitto_pub` of one QoS 1 message; throws when it fails.
    static func pub(
        _ broker: Broker, account: (String, String), clientID: String, topic: String, message: String, retain: Bool = false
    ) async throws {
        var arguments = ["-h", broker.host, "-p", "\(broker.port)", "-u", account.0, "-P", account.1, "-i", clientID,
                         "-q", "1", "-t", topic, "-m", message]
        if retain { arguments.append("-r") }
        let result = try await run("/usr/bin/mosquitto_pub", arguments)
        guard result.status == 0 else { throw AccessControlTestError("mosquitto_pub failed (\(result.status)): \(result.output)") }
    }
}

struct AccessControlTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
