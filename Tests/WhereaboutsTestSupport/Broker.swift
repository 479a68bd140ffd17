import Foundation
import WhereaboutsMQTT
internal import WhereaboutsCore
internal import SystemSupport

/// A real mosquitto broker for one test (or suite), on free loopback ports, with its own
/// configuration in its own temporary directory.
///
/// ```swift
/// let broker = try await Broker.start()                       // anonymous, plain TCP
/// let client = MQTTClient(configuration: broker.clientConfiguration(clientID: "t1"), logger: logger)
/// ...
/// await broker.stop()
/// ```
///
/// Readiness is awaited by connecting to the port (bounded), never by sleeping. `kill()` and
/// `restart()` keep the same ports, for outage tests. The broker is killed and its directory
/// removed when the `Broker` is released (set `WHEREABOUTS_KEEP_BROKER_DIRS=1` to keep the
/// directories and logs), so a failing test leaves nothing running.
public final class Broker: Sendable {
    /// How to configure the broker.
    public struct Options: Sendable {
        /// Whether clients without a user name may connect.
        public var allowAnonymous: Bool
        /// Users and passwords, written to a password file with `mosquitto_passwd`.
        public var users: [String: String]
        /// An existing password file to use instead of (or with no) `users`.
        public var passwordFile: String?
        /// The text of an ACL file (mosquitto `acl_file` syntax), written by the harness.
        public var acl: String?
        /// An existing ACL file.
        public var aclFile: String?
        /// Certificates for a TLS listener (besides the plain one); see `TestCertificates`.
        public var tls: TestCertificates?
        /// Whether the TLS listener requires a client certificate signed by the same CA.
        public var requireClientCertificate: Bool
        /// Whether the broker persists sessions and retained messages (to its directory).
        public var persistence: Bool
        /// How many QoS 1/2 messages the broker queues per client beyond its inflight window
        /// before it drops them ("Outgoing messages are being dropped"); mosquitto's own default
        /// is 1000, which a fast publisher overruns for a subscriber on a busy machine.
        public var maxQueuedMessages: Int
        /// Extra configuration lines appended verbatim.
        public var extraConfiguration: String

        /// Creates options; the defaults give an anonymous, non-persistent, plain-TCP broker.
        public init(
            allowAnonymous: Bool = true, users: [String: String] = [:], passwordFile: String? = nil,
            acl: String? = nil, aclFile: String? = nil, tls: TestCertificates? = nil,
            requireClientCertificate: Bool = false, persistence: Bool = false, maxQueuedMessages: Int = 100_000,
            extraConfiguration: String = ""
        ) {
            self.allowAnonymous = allowAnonymous
            self.users = users
            self.passwordFile = passwordFile
            self.acl = acl
            self.aclFile = aclFile
            self.tls = tls
            self.requireClientCertificate = requireClientCertificate
            self.persistence = persistence
            self.maxQueuedMessages = maxQueuedMessages
            self.extraConfiguration = extraConfiguration
        }
    }

    /// Why the broker could not be started.
    public struct StartError: Error, CustomStringConvertible {
        /// What went wrong, with the tail of mosquitto's log.
        public var description: String
        /// Whether mosquitto exited at start (as when its port was taken meanwhile).
        public var exited = false
    }

    /// The address clients connect to.
    public let host = "127.0.0.1"
    /// The plain MQTT port.
    public let port: Int
    /// The TLS port, when `options.tls` was given.
    public let tlsPort: Int?
    /// The broker's own directory: configuration, password/ACL files, log, persistence.
    public let directory: URL
    /// The options it was started with.
    public let options: Options
    /// The configuration file mosquitto runs with.
    public var configurationFile: URL { directory.appendingPathComponent("mosquitto.conf") }
    /// mosquitto's log file (`log_type all`).
    public var logFile: URL { directory.appendingPathComponent("mosquitto.log") }

    private let process = LockedState<ChildProcess?>(nil)

    private init(port: Int, tlsPort: Int?, directory: URL, options: Options) {
        self.port = port
        self.tlsPort = tlsPort
        self.directory = directory
        self.options = options
    }

    /// Starts a broker and returns once it accepts connections (at most 10 s).
    public static func start(_ options: Options = Options()) async throws -> Broker {
        // A free port can be taken by another suite's broker between finding and binding it;
        // then this mosquitto exits at start, and another pair of ports is tried.
        var attempt = 1
        while true {
            let directory = try TestPaths.makeTemporaryDirectory(prefix: "whereabouts-broker")
            let broker = Broker(
                port: try FreePort.find(), tlsPort: options.tls == nil ? nil : try FreePort.find(),
                directory: directory, options: options)
            try broker.writeConfiguration()
            do {
                try await broker.launch()
                return broker
            } catch let error as StartError where error.exited && attempt < 3 {
                attempt += 1
            }
        }
    }

    deinit {
        process.withLock { $0 }?.signal(SIGKILL)
        // Logs of the 10,000-message tests run to megabytes: do not leave them behind, unless
        // asked to (WHEREABOUTS_KEEP_BROKER_DIRS=1) for debugging.
        if ProcessInfo.processInfo.environment["WHEREABOUTS_KEEP_BROKER_DIRS"] != "1" {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// A client configuration for this broker's plain port (or its TLS port with `tls`).
    public func clientConfiguration(
        clientID: String = "", tls: MQTTConfiguration.TLS? = nil, credentials: MQTTConfiguration.Credentials? = nil
    ) -> MQTTConfiguration {
        var configuration = MQTTConfiguration(
            host: tls == nil ? host : "localhost", port: tls == nil ? port : (tlsPort ?? port), clientID: clientID,
            credentials: credentials, tls: tls,
            reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(500)),
            connectTimeout: .seconds(5), operationTimeout: .seconds(10))
        configuration.keepAlive = .seconds(10)
        return configuration
    }

    /// Stops the broker with SIGTERM (a clean shutdown that saves persistence) and waits for it.
    public func stop() async {
        await terminate(with: SIGTERM)
    }

    /// Kills the broker with SIGKILL (a crash: no clean shutdown) and waits until it is gone.
    public func kill() async {
        await terminate(with: SIGKILL)
    }

    /// Starts the broker again on the same ports with the same configuration (after `stop()` or
    /// `kill()`), returning once it accepts connections.
    public func restart() async throws {
        await terminate(with: SIGTERM)
        try await launch()
    }

    /// Freezes the broker (SIGSTOP): it keeps its sockets but answers nothing, like a hung
    /// server or a black-holed network. Undo with `resume()`.
    public func pause() async {
        process.withLock { $0 }?.signal(SIGSTOP)
    }

    /// Lets a paused broker run again (SIGCONT).
    public func resume() async {
        process.withLock { $0 }?.signal(SIGCONT)
    }

    /// The tail of mosquitto's log, for failure messages.
    public func logTail(lines: Int = 30) -> String {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? "(no log)"
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    private func terminate(with signal: Int32) async {
        guard let running = process.withLock({ process in
            defer { process = nil }
            return process
        }) else { return }
        running.signal(signal)
        await running.waitForExit()
    }

    private func launch() async throws {
        let runsBefore = loggedRuns
        let running = try ChildProcess.spawn("/usr/sbin/mosquitto", ["-c", configurationFile.path], logFile: directory.appendingPathComponent("mosquitto.stderr"))
        process.withLock { $0 = running }
        let ports = [port] + (tlsPort.map { [$0] } ?? [])
        let deadline = ContinuousClock.now + .seconds(10)
        // Ready once *this* mosquitto says it runs (it logs that after opening its listeners)
        // and the ports accept: a port that accepts may belong to another suite's broker.
        while !(loggedRuns > runsBefore && ports.allSatisfy(FreePort.isAccepting)) {
            if !running.isRunning {
                let stderr = (try? String(contentsOf: directory.appendingPathComponent("mosquitto.stderr"), encoding: .utf8)) ?? ""
                throw StartError(description: "mosquitto exited at start: \(stderr)\n\(logTail())", exited: true)
            }
            guard ContinuousClock.now < deadline else {
                throw StartError(description: "mosquitto did not accept connections within 10 s:\n\(logTail())")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// How many times mosquitto's log says it is running (its listeners are open): once per
    /// start, since a restart appends to the same log.
    private var loggedRuns: Int {
        ((try? String(contentsOf: logFile, encoding: .utf8)) ?? "").components(separatedBy: " running\n").count - 1
    }
}
