import Foundation
import Logging
import Testing
import WhereaboutsMQTT
import WhereaboutsTestSupport

@Suite("Last will")
struct WillTests {
    @Test("The will is published when a client process is killed without DISCONNECT", arguments: [MQTTConfiguration.ProtocolVersion.v311, .v5])
    func willOnKill(version: MQTTConfiguration.ProtocolVersion) async throws {
        let broker = try await Broker.start()
        let watcher = broker.client("watcher")
        try await watcher.connect()
        let messages = watcher.messages
        try await watcher.subscribe(to: "owntracks/ann/phone", qos: .atLeastOnce)

        // Built with the tests: this test target depends on the helper's target.
        let helper = try #require(TestPaths.builtExecutable(named: "mqtt-test-client"))
        let child = try ChildProcess.spawn(
            helper.path,
            [broker.host, "\(broker.port)", "ann-phone", "owntracks/ann/phone", #"{"_type":"lwt","tst":1}"#] + (version == .v5 ? ["v5"] : []),
            captureOutput: true)
        _ = try await child.waitForOutputLine { $0 == "connected" }
        child.signal(SIGKILL)
        await child.waitForExit()

        let will = try await messages.next()
        #expect(will.topic == "owntracks/ann/phone")
        #expect(will.payloadString == #"{"_type":"lwt","tst":1}"#)
        #expect(will.retained == false)
        await watcher.disconnect()
        await broker.stop()
    }

    @Test("A clean disconnect does not publish the will", arguments: [MQTTConfiguration.ProtocolVersion.v311, .v5])
    func noWillOnDisconnect(version: MQTTConfiguration.ProtocolVersion) async throws {
        let broker = try await Broker.start()
        let watcher = broker.client("watcher")
        try await watcher.connect()
        let messages = watcher.messages
        try await watcher.subscribe(to: [("will/#", .atLeastOnce), ("marker", .atLeastOnce)])

        let polite = broker.client("polite") {
            $0.will = .init(topic: "will/polite", payload: Data("gone".utf8))
            $0.protocolVersion = version
        }
        try await polite.connect()
        await polite.disconnect()
        // A marker published after the disconnect arrives first if no will was sent.
        try await watcher.publish(to: "marker", payload: "after", qos: .atLeastOnce)
        #expect(try await messages.next().topic == "marker")
        await watcher.disconnect()
        await broker.stop()
    }
}
