import Subscriber
import Foundation
import Provisioning
import Testing
import WhereaboutsTestSupport

/// The `whereabouts-sub` executable as a user runs it (built with the tests).
@Suite("whereabouts-sub command line")
struct CommandLineTests {
    static let executable = TestPaths.builtExecutable(named: "whereabouts-sub")

    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
        guard let executable else { throw AccessControlTestError("whereabouts-sub is not built") }
        let result = try await ToolRun.run(executable.path, arguments)
        return (result.status, result.stdout, result.stderr)
    }

    @Test("acl writes the ACL of the circles file", .enabled(if: executable != nil))
    func acl() async throws {
        let path = TestPaths.packageRoot.appendingPathComponent("examples/circles.yaml").path
        let result = try await Self.run(["acl", "--circles", path, "--subscriber-user", "sub"])
        #expect(result.status == 0)
        let expected = try AccessControlList(circles: try CirclesFile.load(path: path).circles, subscriberUser: "sub").render()
        #expect(result.output == expected)
    }

    @Test("A bad circles file is a usage error naming the line and key", .enabled(if: executable != nil))
    func badCircles() async throws {
        let directory = try TestPaths.makeTemporaryDirectory()
        let path = directory.appendingPathComponent("bad.yaml").path
        try "circles:\n  - id: family\n    members:\n      - {user: alice, device: phone, colour: red}\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        let result = try await Self.run(["--circles", path, "--broker", "mqtt://127.0.0.1:1"])
        #expect(result.status == 2)
        #expect(result.error.contains("line 4"))
        #expect(result.error.contains("circles[0].members[0].colour"))
    }

    @Test("Bad flags are refused before connecting", .enabled(if: executable != nil), arguments: [
        ["--shard", "3/3"], ["--broker", "http://x"], ["--stale-timeout", "0"], ["--log-level", "loud"],
    ])
    func badFlags(flags: [String]) async throws {
        let path = TestPaths.packageRoot.appendingPathComponent("examples/circles.yaml").path
        let result = try await Self.run(["--circles", path] + flags)
        #expect(result.status == 2)
        #expect(result.error.contains("Error:"))
    }

    @Test("With --broker-kind nats and receipts on, a client id NATS cannot carry in a topic is refused", .enabled(if: executable != nil))
    func natsReceiptClientID() async throws {
        let path = TestPaths.packageRoot.appendingPathComponent("examples/circles.yaml").path
        let refused = try await Self.run(["--circles", path, "--broker-kind", "nats", "--client-id", "sub.eu"])
        #expect(refused.status == 2)
        #expect(refused.error.contains("--client-id (a level of the receipts' topic) 'sub.eu' cannot be used with --broker-kind nats"), "\(refused.error)")
        // Without receipts the client id is no topic level, and on mosquitto a '.' is fine: both
        // get past validation (and fail later, connecting to a port nobody serves).
        let port = try FreePort.find()
        for flags in [["--broker-kind", "nats", "--no-receipts"], ["--broker-kind", "mosquitto"]] {
            let accepted = try await Self.run(
                ["--circles", path, "--client-id", "sub.eu", "--state-file", "none", "--broker", "mqtt://127.0.0.1:\(port)"] + flags)
            #expect(accepted.status != 2, "\(flags): \(accepted.error)")
        }
    }

    @Test("With --broker-kind nats a circles file naming a member NATS cannot carry is refused, naming the member", .enabled(if: executable != nil))
    func natsNames() async throws {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "sub-nats-names")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("circles.yaml").path
        try "circles:\n  - id: family\n    members:\n      - {user: alice, device: phone.2}\n".write(toFile: path, atomically: true, encoding: .utf8)
        let refused = try await Self.run(["--circles", path, "--broker-kind", "nats"])
        #expect(refused.status == 2)
        #expect(refused.error.contains("circles[0].members[0].device") && refused.error.contains("`phone.2`"), "\(refused.error)")
        // The same file is fine for mosquitto: it fails later, connecting to a port nobody serves.
        let port = try FreePort.find()
        let accepted = try await Self.run(["--circles", path, "--broker", "mqtt://127.0.0.1:\(port)"])
        #expect(accepted.status != 2, "\(accepted.error)")
    }
}
