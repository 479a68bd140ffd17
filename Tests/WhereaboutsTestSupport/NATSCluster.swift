import Foundation
import Logging
import WhereaboutsMQTT

#if canImport(Glibc)
import Glibc
#endif

/// A three-node NATS JetStream cluster with MQTT listeners for one test, started with the shipped
/// script `broker/nats/run-local-cluster` on free loopback ports in a temporary folder.
///
/// ```swift
/// let cluster = try await NATSCluster.start()
/// let client = cluster.client("t1", node: 0)
/// ```
public final class NATSCluster: Sendable {
    /// The MQTT port of each node, in node order.
    public let mqttPorts: [Int]
    /// The monitoring port of each node (`/healthz`), in node order.
    public let httpPorts: [Int]
    /// The cluster's folder: stores, logs (`node-N.log`) and process ids (`node-N.pid`).
    public let directory: URL
    private let script: ChildProcess

    private init(mqttPorts: [Int], httpPorts: [Int], directory: URL, script: ChildProcess) {
        self.mqttPorts = mqttPorts
        self.httpPorts = httpPorts
        self.directory = directory
        self.script = script
    }

    /// Starts the cluster and returns once every node accepts MQTT and its JetStream is current.
    ///
    /// - Parameters:
    ///   - users: An accounts file for the nodes (default: the shipped development one).
    ///   - restartDelay: Seconds after which the script starts a node that stopped again.
    ///   - configuration: A node configuration instead of the shipped `broker/nats/local-node.conf`
    ///     (to measure other settings side by side).
    public static func start(users: URL? = nil, restartDelay: Double = 0.5, configuration: URL? = nil) async throws -> NATSCluster {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "nats-cluster")
        let ports = try (0..<12).map { _ in try FreePort.find() }
        func list(_ range: Range<Int>) -> String { ports[range].map(String.init).joined(separator: ",") }
        var arguments = [
            "--dir", directory.path, "--mqtt-ports", list(0..<3), "--route-ports", list(3..<6),
            "--client-ports", list(6..<9), "--http-ports", list(9..<12), "--restart-delay", "\(restartDelay)",
        ]
        if let users { arguments += ["--users", users.path] }
        if let configuration { arguments += ["--config", configuration.path] }
        let script = TestPaths.packageRoot.appendingPathComponent("broker/nats/run-local-cluster").path
        let process = try ChildProcess.spawn(
            script, arguments, logFile: directory.appendingPathComponent("run-local-cluster.log"), captureOutput: true)
        do {
            // A cold start elects the JetStream meta leader first: a few seconds on a loaded machine.
            let line = try await process.waitForOutputLine(timeout: .seconds(60)) { $0.split(separator: " ").count == 3 }
            let mqttPorts = line.split(separator: " ").compactMap { Int($0) }
            return NATSCluster(mqttPorts: mqttPorts, httpPorts: Array(ports[9..<12]), directory: directory, script: process)
        } catch {
            process.signal(SIGTERM)
            _ = await process.waitForExit()
            throw error
        }
    }

    /// An MQTT 3.1.1 client configuration for node `node` (NATS speaks no MQTT 5).
    public func clientConfiguration(clientID: String, node: Int) -> MQTTConfiguration {
        var configuration = MQTTConfiguration(
            host: "127.0.0.1", port: mqttPorts[node], clientID: clientID, protocolVersion: .v311,
            reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(500)),
            connectTimeout: .seconds(10), operationTimeout: .seconds(20))
        configuration.keepAlive = .seconds(10)
        return configuration
    }

    /// A client of node `node`; `configure` may change its configuration first.
    public func client(
        _ clientID: String, node: Int, logger: Logger = .test(), configure: (inout MQTTConfiguration) -> Void = { _ in }
    ) -> MQTTClient {
        var configuration = clientConfiguration(clientID: clientID, node: node)
        configure(&configuration)
        return MQTTClient(configuration: configuration, logger: logger)
    }

    /// The process id of node `node` (for fault tests).
    public func pid(ofNode node: Int) throws -> pid_t {
        let text = try String(contentsOf: directory.appendingPathComponent("node-\(node + 1).pid"), encoding: .utf8)
        guard let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return pid
    }

    /// A test that failed before ``stop()`` must not leave three nodes running.
    deinit {
        if script.isRunning { script.signal(SIGTERM) }
    }

    /// The broker list of every node for `--broker`, starting with node `first`.
    public func brokerList(startingAt first: Int = 0) -> String {
        (0..<3).map { "mqtt://127.0.0.1:\(mqttPorts[(first + $0) % 3])" }.joined(separator: ",")
    }

    /// Kills node `node` with SIGKILL and returns once the script has started it again and its
    /// JetStream is current (`/healthz` ok), at most `timeout`. Returns the time from the kill
    /// until then (the script's restart delay included).
    @discardableResult
    public func killAndAwaitRestart(node: Int, timeout: Duration = .seconds(60)) async throws -> Duration {
        let old = try pid(ofNode: node)
        let killed = ContinuousClock.now
        kill(old, SIGKILL)
        let httpPort = httpPorts[node]
        try await waitUntil("node \(node + 1) started again and current", timeout: timeout, interval: .milliseconds(200)) { [self] in
            guard let new = try? pid(ofNode: node), new != old, kill(new, 0) == 0 else { return false }
            let answer = try? await RawHTTP.send(port: httpPort, ["GET /healthz HTTP/1.1", "Host: 127.0.0.1", "Connection: close"])
            return answer?.text.contains(#""status":"ok""#) == true
        }
        return ContinuousClock.now - killed
    }

    /// What node `node` holds in JetStream, per stream name (`$MQTT_msgs`, `$MQTT_sess`,
    /// `$MQTT_rmsgs`), summed over accounts: its messages and consumers, from the monitoring
    /// endpoint `GET /jsz?accounts=true&streams=true&consumers=true`; `nil` when it does not answer.
    /// (Decoded field by field: the answer holds 2^64 - 1 for unlimited reservations, which
    /// JSONSerialization refuses.)
    public func jetStream(ofNode node: Int) async -> [String: (messages: Int, consumers: Int)]? {
        struct Answer: Decodable {
            struct Account: Decodable { var stream_detail: [Stream]? }
            struct Stream: Decodable {
                struct State: Decodable { var messages: Int?; var consumer_count: Int? }
                var name: String
                var state: State
            }
            var account_details: [Account]?
        }
        guard let answer = try? await RawHTTP.send(port: httpPorts[node], [
            // HTTP/1.0: a longer answer comes chunked to an HTTP/1.1 request.
            "GET /jsz?accounts=true&streams=true&consumers=true HTTP/1.0", "Host: 127.0.0.1",
        ]), let decoded = try? JSONDecoder().decode(Answer.self, from: Data(answer.body.utf8)) else { return nil }
        var streams: [String: (messages: Int, consumers: Int)] = [:]
        for account in decoded.account_details ?? [] {
            for stream in account.stream_detail ?? [] {
                let before = streams[stream.name] ?? (0, 0)
                streams[stream.name] = (before.messages + (stream.state.messages ?? 0), before.consumers + (stream.state.consumer_count ?? 0))
            }
        }
        return streams
    }

    /// The NATS server's version (major, minor) as node `node`'s `GET /varz` reports it (e.g.
    /// "2.9.10" gives (2, 9)); `nil` when it does not answer. The cluster runs whichever
    /// `nats-server` comes first in `PATH` (docs/cluster.md, "Which NATS").
    public func serverVersion(ofNode node: Int = 0) async -> (major: Int, minor: Int)? {
        struct Answer: Decodable { var version: String }
        guard let answer = try? await RawHTTP.send(port: httpPorts[node], ["GET /varz HTTP/1.0", "Host: 127.0.0.1"]),
              let decoded = try? JSONDecoder().decode(Answer.self, from: Data(answer.body.utf8)) else { return nil }
        let parts = decoded.version.split(separator: ".").compactMap { Int($0) }
        guard parts.count >= 2 else { return nil }
        return (parts[0], parts[1])
    }

    /// One stream's counters as a node's monitoring endpoint reports them.
    public struct StreamCounters: Sendable {
        /// The stream's last sequence number: every write (a retained replacement too) adds one.
        public var lastSequence: Int
        public var messages: Int
        public var bytes: Int
        public var consumers: Int
        /// Summed over the stream's consumers: deliveries made and acknowledged (consumer sequences).
        public var delivered: Int
        public var acknowledged: Int
    }

    /// Node `node`'s streams (`$MQTT_msgs`, `$MQTT_sess`, `$MQTT_rmsgs`, summed over accounts)
    /// with their write and consumer counters, from `GET /jsz?accounts=true&streams=true&consumers=true`;
    /// `nil` when it does not answer. Two snapshots apart give the JetStream work in between.
    public func streamCounters(ofNode node: Int) async -> [String: StreamCounters]? {
        struct Answer: Decodable {
            struct Account: Decodable { var stream_detail: [Stream]? }
            struct Sequences: Decodable { var consumer_seq: Int? }
            struct Consumer: Decodable { var delivered: Sequences?; var ack_floor: Sequences? }
            struct Stream: Decodable {
                struct State: Decodable { var messages: Int?; var bytes: Int?; var last_seq: Int?; var consumer_count: Int? }
                var name: String
                var state: State
                var consumer_detail: [Consumer]?
            }
            var account_details: [Account]?
        }
        guard let answer = try? await RawHTTP.send(port: httpPorts[node], [
            "GET /jsz?accounts=true&streams=true&consumers=true HTTP/1.0", "Host: 127.0.0.1",
        ]), let decoded = try? JSONDecoder().decode(Answer.self, from: Data(answer.body.utf8)) else { return nil }
        var streams: [String: StreamCounters] = [:]
        for account in decoded.account_details ?? [] {
            for stream in account.stream_detail ?? [] {
                var counters = streams[stream.name] ?? StreamCounters(lastSequence: 0, messages: 0, bytes: 0, consumers: 0, delivered: 0, acknowledged: 0)
                counters.lastSequence += stream.state.last_seq ?? 0
                counters.messages += stream.state.messages ?? 0
                counters.bytes += stream.state.bytes ?? 0
                counters.consumers += stream.state.consumer_count ?? 0
                for consumer in stream.consumer_detail ?? [] {
                    counters.delivered += consumer.delivered?.consumer_seq ?? 0
                    counters.acknowledged += consumer.ack_floor?.consumer_seq ?? 0
                }
                streams[stream.name] = counters
            }
        }
        return streams
    }

    /// One JetStream consumer as a node's monitoring endpoint describes it.
    public struct ConsumerInfo: Sendable {
        public var stream: String
        public var name: String
        /// The NATS subject it reads (an MQTT filter `a/+/+` reads `$MQTT.msgs.a.*.*`).
        public var filterSubject: String
        /// The server name of its leader (`node-1` ...), when it has one.
        public var leader: String?
    }

    /// Every consumer node `node` knows, from `GET /jsz?accounts=true&streams=true&consumers=true&config=true`;
    /// `nil` when it does not answer.
    public func consumers(ofNode node: Int) async -> [ConsumerInfo]? {
        struct Answer: Decodable {
            struct Account: Decodable { var stream_detail: [Stream]? }
            struct Stream: Decodable {
                var name: String
                var consumer_detail: [Consumer]?
            }
            struct Consumer: Decodable {
                struct Config: Decodable { var filter_subject: String? }
                struct Cluster: Decodable { var leader: String? }
                var name: String
                var config: Config?
                var cluster: Cluster?
            }
            var account_details: [Account]?
        }
        guard let answer = try? await RawHTTP.send(port: httpPorts[node], [
            "GET /jsz?accounts=true&streams=true&consumers=true&config=true HTTP/1.0", "Host: 127.0.0.1",
        ]), let decoded = try? JSONDecoder().decode(Answer.self, from: Data(answer.body.utf8)) else { return nil }
        return (decoded.account_details ?? []).flatMap { account in
            (account.stream_detail ?? []).flatMap { stream in
                (stream.consumer_detail ?? []).map {
                    ConsumerInfo(stream: stream.name, name: $0.name, filterSubject: $0.config?.filter_subject ?? "", leader: $0.cluster?.leader)
                }
            }
        }
    }

    /// What one node logged (to explain a failure).
    public func log(ofNode node: Int) -> String {
        (try? String(contentsOf: directory.appendingPathComponent("node-\(node + 1).log"), encoding: .utf8)) ?? ""
    }

    /// What the start script logged so far (restarts, repairs).
    public var scriptLog: String {
        (try? String(contentsOf: directory.appendingPathComponent("run-local-cluster.log"), encoding: .utf8)) ?? ""
    }

    /// Stops every node cleanly (SIGTERM to the script), waits for the script, and returns its raw
    /// wait status; removes the folder.
    @discardableResult
    public func stop() async -> Int32 {
        script.signal(SIGTERM)
        let status = await script.waitForExit()
        try? FileManager.default.removeItem(at: directory)
        return status
    }
}
