import Foundation
import CommandLineSupport
import Testing
import WhereaboutsTestSupport

/// The real whereabouts-pub binary's command line: exit code 2 with a message naming the problem.
@Suite("whereabouts-pub command line", .enabled(if: PublisherProcess.executable != nil))
struct CommandLineTests {
    /// Runs the binary to completion and returns its exit status and combined output.
    private func run(
        _ arguments: [String], environment: [String: String] = [:], executable: URL? = PublisherProcess.executable
    ) async throws -> (status: Int32, output: String) {
        guard let executable else { throw SetupError("the binary (build it first)") }
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        let result = try await ToolRun.run(executable.path, arguments, environment: env)
        return (result.status, result.stdout + result.stderr)
    }

    private let required = ["--source", "gpx:/nonexistent.gpx", "--user", "alice", "--device", "phone"]

    @Test("Bad flags exit 2 with a message naming the flag", arguments: [
        (["--qos", "5"], "The value '5' is invalid for '--qos <qos>'"),
        (["--profile", "frugal"], "The value 'frugal' is invalid for '--profile <profile>'"),
        (["--log-level", "loud"], "The value 'loud' is invalid for '--log-level <log-level>'"),
        (["--tls-ca-file", "/nonexistent/ca.pem"], "TLS options need an mqtts:// broker"),
        (["--broker", "mqtts://x:8883", "--ca-file", "/nonexistent/ca.pem"], "The file /nonexistent/ca.pem cannot be read"),
        (["--broker", "http://x"], "use mqtt:// or mqtts://"),
        (["--broker", "mqtts://x:8883"], "mqtts:// needs --tls-ca-file"),
        (["--outbox-max", "0"], "--outbox-max must be at least 1"),
        (["--publish-timeout", "0.5"], "--publish-timeout must be 1 to 3600 seconds"),
        (["--publish-timeout", "nan"], "--publish-timeout must be 1 to 3600 seconds"),
        (["--policy", "bounded,seed"], "exactly one policy"),
        (["--replay-speed", "fast-ish"], "--replay-speed 'fast-ish'"),
        (["--tid", "abc"], "--tid 'abc'"),
        (["--password-file", "/nonexistent/password"], "Cannot read the password file"),
        (["--no-such-flag"], "Unknown option '--no-such-flag'"),
        (["--broker-kind", "nats", "--device", "phone.2", "--tid", "p2"], "--device 'phone.2' cannot be used with --broker-kind nats"),
        (["--broker-kind", "nats", "--user", "al@home"], "drops QoS 1 messages whose topic holds '@'"),
        (["--broker-kind", "nats", "--qos", "2"], "--qos 2 cannot be used with --broker-kind nats"),
        (["--broker-kind", "rabbit"], "The value 'rabbit' is invalid for '--broker-kind <kind>'"),
        (["--broker", "mqtt://a:1883,mqtts://b:8883"], "mix mqtt:// and mqtts://"),
        (["--broker", "mqtt://a:1883,mqtt://a:1883"], "lists a broker twice"),
        // One rule for names (OwnTracksName): an account the generated access control would not
        // let publish on owntracks/<user>/# is refused at start, instead of losing every report.
        (["--user", "Eve", "--username", "eve"], "--username 'eve' does not match the topic owntracks/Eve/phone"),
        (["--user", "Eve", "--username", "whereabouts-eve-phone"], "differ only in upper and lower case"),
        (["--username", "bob"], "cannot publish as the user 'alice': they are different names"),
        (["--user", "Eve\u{301}"], "not in Unicode normalisation form C"),
        (["--username", "Alice", "--topic-base", "owntracks/alice/phone"], "differ only in upper and lower case"),
    ])
    func badFlags(extra: [String], message: String) async throws {
        let result = try await run(required + extra)
        #expect(result.status == 2)
        #expect(result.output.contains(message), "\(result.output)")
    }

    @Test("A shared broker account with an explicit --topic-base passes the name check (the run then fails on the missing source)")
    func sharedAccount() async throws {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "pub-shared")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await run(required + [
            "--username", "household", "--topic-base", "owntracks/alice/phone", "--broker", "mqtt://127.0.0.1:1",
            "--outbox", directory.appendingPathComponent("o.sqlite").path,
        ])
        #expect(result.status == 1, "\(result.output)")
        #expect(!result.output.contains("does not match") && result.output.contains("/nonexistent.gpx"), "\(result.output)")
    }

    @Test("A bad config file exits 2 naming the file, line and key; flags override the file")
    func configFile() async throws {
        let dir = try TestPaths.makeTemporaryDirectory(prefix: "pub-config")
        let unknown = dir.appendingPathComponent("unknown.yaml")
        try "user: alice\npasword-file: /x\n".write(to: unknown, atomically: true, encoding: .utf8)
        var result = try await run(["--config", unknown.path])
        #expect(result.status == 2)
        #expect(result.output.contains("\(unknown.path):2: unknown key 'pasword-file'"), "\(result.output)")

        let invalid = dir.appendingPathComponent("invalid.yaml")
        try "source: gpx:/x.gpx\nuser: a\ndevice: b\nqos: many\n".write(to: invalid, atomically: true, encoding: .utf8)
        result = try await run(["--config", invalid.path])
        #expect(result.status == 2)
        #expect(result.output.contains("\(invalid.path):4: the value 'many' of 'qos' is invalid"), "\(result.output)")

        // The file says qos 2, the command line says 7: the command line wins (and 7 is refused).
        let valid = dir.appendingPathComponent("valid.yaml")
        try "source: gpx:/x.gpx\nuser: a\ndevice: b\nqos: 2\n".write(to: valid, atomically: true, encoding: .utf8)
        result = try await run(["--config", valid.path, "--qos", "7"])
        #expect(result.status == 2)
        #expect(result.output.contains("The value '7' is invalid for '--qos"), "\(result.output)")
    }

    @Test("Every long flag in --help is a config key, and every config key a flag")
    func configKeysMatchFlags() async throws {
        let help = try await run(["--help"]).output
        let flags = Set(help.matches(of: /--([a-z][a-z0-9-]+)/).map { String($0.1) })
            .subtracting(["help", "version", "config", "no-retain", "no-receipts"])
            .subtracting(Self.brokerFlagAliases)
        let example = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("examples/publisher.yaml"), encoding: .utf8)
        let exampleKeys = Set(example.split(separator: "\n").compactMap { line -> String? in
            let text = line.hasPrefix("# ") ? line.dropFirst(2) : line[...]
            guard let colon = text.firstIndex(of: ":"), !text.hasPrefix(" ") else { return nil }
            let key = String(text[..<colon])
            return key.allSatisfy({ $0.isLowercase || $0 == "-" }) ? key : nil
        })
        let policyFlags: Set = ["policy", "epsilon", "max-silence", "stationary-speed", "fit-tolerance", "min-speed", "min-filter",
                                "min-interval", "interval", "distance", "significant-distance", "significant-interval",
                                "max-age", "max-accuracy", "max-speed", "future-tolerance"]
        #expect(flags.subtracting(exampleKeys).subtracting(policyFlags).isEmpty,
                "flags missing from examples/publisher.yaml: \(flags.subtracting(exampleKeys).subtracting(policyFlags))")
        #expect(flags.isSuperset(of: policyFlags))
        // Every key of the example is accepted: the example itself parses (a bad key would exit 2).
        let result = try await run(["--config", TestPaths.packageRoot.appendingPathComponent("examples/publisher.yaml").path, "--qos", "9"])
        #expect(result.output.contains("The value '9' is invalid for '--qos"), "\(result.output)")
        // And every value: the example as shipped gets past parsing and validation to the first
        // thing it does, opening the outbox (here one that cannot be made). `tls-insecure: false`
        // once stopped it with "Unknown option '--no-tls-insecure'".
        let shipped = try await run(["--config", TestPaths.packageRoot.appendingPathComponent("examples/publisher.yaml").path,
                                     "--outbox", "/proc/nonexistent/outbox.sqlite"])
        #expect(shipped.status == 1 && shipped.output.contains("Cannot create the outbox folder /proc/nonexistent"), "\(shipped.output)")
    }

    /// The broker flags of both programs: those `BrokerOptions` (CommandLineSupport) declares config
    /// keys for, so that a new broker option needs no edit here.
    static let brokerFlags = Set(BrokerOptions.configKeys.map(\.name))
    /// The subscriber's old spellings, kept as aliases (not config keys).
    static let brokerFlagAliases: Set = ["ca-file", "cert-file", "key-file"]

    @Test("Every long flag of whereabouts-sub run is a config key, and --config is read")
    func subscriberConfigKeys() async throws {
        let subscriber = PublisherProcess.executable?.deletingLastPathComponent().appendingPathComponent("whereabouts-sub")
        let help = try await run(["run", "--help"], executable: subscriber).output
        let flags = Set(help.matches(of: /--([a-z][a-z0-9-]+)/).map { String($0.1) })
            .subtracting(["help", "version", "config", "no-receipts"]).subtracting(Self.brokerFlagAliases)
            .subtracting(["tile-url", "tile-attribution"])  // the dashboard's aliases of --tiles, --tiles-attribution
        #expect(flags.count > 20, "\(help)")
        let dir = try TemporaryDirectory(prefix: "sub-config")
        for flag in flags.sorted() {
            let file = try dir.write("\(flag): 1\n", to: "\(flag).yaml")
            let result = try await run(["--config", file], executable: subscriber)
            #expect(result.status == 2)
            #expect(!result.output.contains("unknown key"), "--\(flag) is no config key: \(result.output)")
        }
        let unknown = try dir.write("circles: /x\nbrokr: mqtt://x\n", to: "unknown.yaml")
        #expect(try await run(["--config", unknown], executable: subscriber).output.contains("\(unknown):2: unknown key 'brokr'"))
        // The file is read: its circles file is the one the error names; the command line wins.
        let circles = try dir.write("circles: /nonexistent/circles.yaml\nlog-level: debug\n", to: "sub.yaml")
        #expect(try await run(["--config", circles], executable: subscriber).output.contains("/nonexistent/circles.yaml"))
        let overridden = try await run(["run", "--config", circles, "--circles", "/nonexistent/other.yaml"], executable: subscriber).output
        #expect(overridden.contains("/nonexistent/other.yaml") && !overridden.contains("/nonexistent/circles.yaml"), "\(overridden)")
    }

    @Test("whereabouts-pub, whereabouts-sub run and whereabouts-sub dynsec accept the same broker flags")
    func sameBrokerFlags() async throws {
        let subscriber = PublisherProcess.executable?.deletingLastPathComponent().appendingPathComponent("whereabouts-sub")
        let helps = [
            ("whereabouts-pub", try await run(["--help"]).output),
            ("whereabouts-sub run", try await run(["run", "--help"], executable: subscriber).output),
            ("whereabouts-sub dynsec", try await run(["dynsec", "--help"], executable: subscriber).output),
        ]
        for (program, help) in helps {
            let flags = Set(help.matches(of: /--([a-z][a-z0-9-]+)/).map { String($0.1) })
            let missing = Self.brokerFlags.union(Self.brokerFlagAliases).subtracting(flags)
            #expect(missing.isEmpty, "\(program) lacks \(missing.sorted())")
        }
        // One TLS rule: a CA file with a plain mqtt:// URL is refused by both, naming the rule.
        let publisher = try await run(required + ["--ca-file", "/etc/hostname"])
        let subscriberRun = try await run(
            ["run", "--circles", TestPaths.packageRoot.appendingPathComponent("examples/circles.yaml").path, "--ca-file", "/etc/hostname"],
            executable: subscriber)
        for result in [publisher, subscriberRun] {
            #expect(result.status == 2)
            #expect(result.output.contains("TLS options need an mqtts:// broker"), "\(result.output)")
        }
    }
}
