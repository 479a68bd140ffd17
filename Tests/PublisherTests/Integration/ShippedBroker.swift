import Foundation
import Synchronization
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// mosquitto run with one of the shipped configurations (`broker/mosquitto-<name>.conf`), as
/// `broker/run-broker` runs it: the shipped lines, with the listener on a free loopback port and
/// persistence in a temporary folder. `kill()` is `kill -9`; `start()` again reuses port and folder.
final class ShippedBroker: Sendable {
    let port: Int
    let directory: URL
    private let process = Mutex<ChildProcess?>(nil)

    init(config name: String) throws {
        port = try FreePort.find()
        directory = try TestPaths.makeTemporaryDirectory(prefix: "shipped-broker")
        let shipped = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("broker/mosquitto-\(name).conf"), encoding: .utf8)
        let dropped = ["listener", "persistence_location", "log_dest", "pid_file", "user"]
        let body = shipped.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            let word = line.split(separator: " ").first.map(String.init) ?? ""
            return !dropped.contains(word)
        }
        var lines = ["listener \(port) 127.0.0.1"] + body.map(String.init)
        lines += ["persistence_location \(directory.path)/", "log_dest file \(directory.path)/mosquitto.log"]
        if getuid() == 0 { lines.append("user root") }
        try lines.joined(separator: "\n").write(to: directory.appendingPathComponent("mosquitto.conf"), atomically: true, encoding: .utf8)
    }

    /// Starts mosquitto and waits (bounded) until it accepts connections.
    func start() async throws {
        let child = try ChildProcess.spawn("/usr/sbin/mosquitto", ["-c", directory.appendingPathComponent("mosquitto.conf").path],
                                           logFile: directory.appendingPathComponent("stderr"))
        process.withLock { $0 = child }
        try await waitUntil("the shipped-config broker to accept connections", timeout: .seconds(10)) { [port] in
            FreePort.isAccepting(port)
        }
    }

    /// `kill -9`: no clean shutdown, no final save.
    func kill() async {
        guard let child = process.withLock({ $0 }) else { return }
        child.signal(SIGKILL)
        _ = await child.waitForExit()
        process.withLock { $0 = nil }
    }

    deinit { process.withLock { $0 }?.signal(SIGKILL) }
}

/// Reads the retained message of `topic` from the shipped-config broker with a fresh clean-session client.
func retainedMessage(on topic: String, broker: ShippedBroker) async throws -> MQTTMessage {
    let configuration = MQTTConfiguration(host: "127.0.0.1", port: broker.port, clientID: "retained-\(UUID().uuidString.prefix(8))")
    let client = MQTTClient(configuration: configuration, logger: .test("retained"))
    let messages = client.messages
    try await client.connect()
    try await client.subscribe(to: topic, qos: .atLeastOnce)
    let message = try await messages.next(timeout: .seconds(5))
    await client.disconnect()
    return message
}
