import Foundation
import Testing
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// `broker/run-broker`, the script `scripts/demo` starts the development broker with, run as the
/// demo runs it (the shipped-config tests rebuild its configuration in Swift instead, so they did
/// not see the script end at once when one of its plugin paths was missing).
@Suite("broker/run-broker script")
struct RunBrokerScriptTests {
    @Test("run-broker --config dev prints a port that accepts MQTT, and stops cleanly on SIGTERM")
    func devBroker() async throws {
        let script = TestPaths.packageRoot.appendingPathComponent("broker/run-broker").path
        let errors = try TestPaths.makeTemporaryDirectory(prefix: "run-broker").appendingPathComponent("stderr.log")
        let broker = try ChildProcess.spawn(script, ["--config", "dev"], logFile: errors, captureOutput: true)
        defer { broker.signal(SIGKILL) }
        let line = try await broker.waitForOutputLine(timeout: .seconds(20)) { Int($0) != nil }
        let port = try #require(Int(line))
        let client = MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: port, clientID: "run-broker-check"), logger: .test("run-broker"))
        try await client.connect()
        try await client.publish(to: "whereabouts/check", payload: "ok", qos: .atLeastOnce)
        await client.disconnect()
        broker.signal(SIGTERM)
        // A raw wait status: the script stops its mosquitto and exits with 143 (128 + SIGTERM).
        let status = await broker.waitForExit()
        #expect(status & 0x7f == 0 && (status >> 8) & 0xff == 143,
                "run-broker wait status \(status): \((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
        #expect(!FreePort.isAccepting(port), "its mosquitto stopped too")
    }
}
