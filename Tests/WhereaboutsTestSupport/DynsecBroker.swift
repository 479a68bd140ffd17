import Foundation

/// A mosquitto broker with the dynamic security plugin, and its admin account: accounts, roles
/// and ACLs change while it runs (`mosquitto_ctrl dynsec ...`), and persist across restarts in its
/// JSON file. Unlike an `acl_file`, dynamic security checks subscriptions: a filter a client may
/// not subscribe to gets a failure code in SUBACK (mosquitto 2.0 grants every filter under an
/// `acl_file` and filters at delivery instead).
public struct DynsecBroker: Sendable {
    /// The broker (no anonymous access; the admin account is `admin` / `admin-pw`).
    public let broker: Broker

    /// The plugin's path on this machine, or `nil` where it is not installed.
    public static let pluginPath = [
        "/usr/lib/x86_64-linux-gnu/mosquitto_dynamic_security.so", "/usr/lib/aarch64-linux-gnu/mosquitto_dynamic_security.so",
        "/usr/lib/mosquitto_dynamic_security.so",
    ].first { FileManager.default.fileExists(atPath: $0) }

    /// Starts a broker whose dynamic security holds only the admin account (`mosquitto_ctrl
    /// dynsec init`: every other client may neither publish nor subscribe until given a role or
    /// a default access).
    public static func start() async throws -> DynsecBroker {
        guard let pluginPath else { throw ToolRun.Failure(description: "the mosquitto dynamic security plugin is not installed") }
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "dynsec")
        let configuration = directory.appendingPathComponent("dynamic-security.json")
        _ = try await ToolRun.run("/usr/bin/mosquitto_ctrl", ["dynsec", "init", configuration.path, "admin", "admin-pw"])
        let broker = try await Broker.start(.init(
            allowAnonymous: false, extraConfiguration: "plugin \(pluginPath)\nplugin_opt_config_file \(configuration.path)"))
        return DynsecBroker(broker: broker)
    }

    /// Runs `mosquitto_ctrl dynsec <arguments>` against the broker as the admin, e.g.
    /// `["createClient", "Eve", "-p", "pw"]`; throws when it fails.
    public func dynsec(_ arguments: [String]) async throws {
        let output = try await ToolRun.run(
            "/usr/bin/mosquitto_ctrl",
            ["-h", broker.host, "-p", "\(broker.port)", "-u", "admin", "-P", "admin-pw", "dynsec"] + arguments)
        guard output.status == 0, !output.stdout.contains("Error"), !output.stderr.contains("Error") else {
            throw ToolRun.Failure(description: "mosquitto_ctrl dynsec \(arguments.joined(separator: " ")): \(output.stdout) \(output.stderr)")
        }
    }
}
