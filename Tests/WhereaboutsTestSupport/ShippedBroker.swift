import Foundation
import Synchronization

/// mosquitto run with one of the shipped configurations (`broker/mosquitto-<name>.conf`), as
/// `broker/run-broker` runs it: the shipped lines, with a plain listener on a free loopback port
/// and persistence in a temporary folder. The shipped TLS lines (which belong to the shipped
/// listener) are left out; file paths the configuration names (`password_file`, `acl_file`,
/// `plugin_opt_config_file`) are replaced by `files`. Everything else, persistence and autosave
/// above all, is the shipped text. `kill()` is `kill -9`; `start()` again reuses port and folder.
public final class ShippedBroker: Sendable {
    /// The address clients connect to.
    public let host = "127.0.0.1"
    /// The plain MQTT port.
    public let port: Int
    /// The broker's folder: configuration, persistence, log.
    public let directory: URL
    private let process = Mutex<ChildProcess?>(nil)

    /// The shipped configuration's lines that belong to its TLS listener, or to the machine.
    static let dropped = [
        "listener", "persistence_location", "log_dest", "pid_file", "user",
        "cafile", "certfile", "keyfile", "tls_version", "require_certificate",
    ]

    /// Writes the configuration; `files` maps an option (`password_file`) to the path it gets.
    public init(config name: String, files: [String: String] = [:]) throws {
        port = try FreePort.find()
        directory = try TestPaths.makeTemporaryDirectory(prefix: "shipped-broker")
        let shipped = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("broker/mosquitto-\(name).conf"), encoding: .utf8)
        let body = shipped.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line -> String? in
            let word = line.split(separator: " ").first.map(String.init) ?? ""
            if Self.dropped.contains(word) { return nil }
            if let path = files[word] { return "\(word) \(path)" }
            return String(line)
        }
        var lines = ["listener \(port) 127.0.0.1"] + body
        lines += ["persistence_location \(directory.path)/", "log_dest file \(directory.path)/mosquitto.log"]
        if getuid() == 0 { lines.append("user root") }
        try lines.joined(separator: "\n").write(to: configurationFile, atomically: true, encoding: .utf8)
    }

    /// The configuration mosquitto runs with.
    public var configurationFile: URL { directory.appendingPathComponent("mosquitto.conf") }

    /// The configuration's text, for assertions on what was kept.
    public var configuration: String { (try? String(contentsOf: configurationFile, encoding: .utf8)) ?? "" }

    /// Starts mosquitto and waits (bounded) until it accepts connections.
    public func start() async throws {
        let child = try ChildProcess.spawn("/usr/sbin/mosquitto", ["-c", configurationFile.path],
                                           logFile: directory.appendingPathComponent("stderr"))
        process.withLock { $0 = child }
        try await waitUntil("the shipped-config broker to accept connections", timeout: .seconds(10)) { [port] in
            FreePort.isAccepting(port)
        }
    }

    /// `kill -9`: no clean shutdown, no final save.
    public func kill() async {
        guard let child = process.withLock({ $0 }) else { return }
        child.signal(SIGKILL)
        _ = await child.waitForExit()
        process.withLock { $0 = nil }
    }

    /// mosquitto's log so far, for failure messages.
    public var log: String {
        (try? String(contentsOf: directory.appendingPathComponent("mosquitto.log"), encoding: .utf8)) ?? ""
    }

    deinit { process.withLock { $0 }?.signal(SIGKILL) }
}
