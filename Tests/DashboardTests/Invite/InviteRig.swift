import Foundation
@testable import Dashboard
import Testing
import WhereaboutsTestSupport

/// The real set-up of the dashboard's invites: mosquitto reading the ACL and password files, and
/// the real `whereabouts-sub` serving the dashboard with `--users` and `--invite-accounts
/// mosquitto`, which rewrites those files and sends mosquitto SIGHUP (`--invite-reload-pid-file`).
struct InviteRig: Sendable {
    static let executable = TestPaths.builtExecutable(named: "whereabouts-sub")
    static let app = TestPaths.fixtures.appendingPathComponent("owntracks-app.py").path
    static let ready = executable != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/zbarimg")
        && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/paho/mqtt/client.py")
    static let password = "a long test password"

    /// Two circles shared with the apps; alice is in work only, until an invite adds her to family.
    static let circles = """
        # Circles of the invite dialog's tests.
        circles:
          - id: family
            name: Family
            owntracks: true
            members:
              - user: bob
                device: phone
                name: Bob

          - id: work
            name: Work
            owntracks: true
            members:
              - user: carol
                device: laptop
              - user: alice
                device: phone

        """

    /// ann administers both circles, fred family only, nora none (a member of family).
    static let accounts: [(name: String, admin: [String], circles: [String]?)] = [
        ("ann", ["family", "work"], nil), ("fred", ["family"], nil), ("nora", [], ["family"]),
    ]

    let directory: URL
    let broker: Broker
    let subscriber: ChildProcess
    let port: Int
    var circlesPath: String { directory.appendingPathComponent("circles.yaml").path }
    var log: URL { directory.appendingPathComponent("sub.log") }
    var http: LoginHTTP { LoginHTTP(port: port) }

    /// Starts mosquitto and the subscriber; `appBroker` is what the invites tell the phones. With
    /// `dynamicSecurity`, mosquitto runs the dynamic security plugin (admin `admin`), the
    /// subscriber's account is made by `whereabouts-sub dynsec`, and the dashboard invites with
    /// `--invite-accounts dynsec`.
    static func start(appBroker: String? = nil, dynamicSecurity: Bool = false) async throws -> InviteRig {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "invite-dialog")
        let executable = try #require(executable).path
        let passwords = directory.appendingPathComponent("passwords")
        try FileManager.default.createDirectory(at: passwords, withIntermediateDirectories: true)
        let circles = directory.appendingPathComponent("circles.yaml")
        try Self.circles.write(to: circles, atomically: true, encoding: .utf8)
        // The users file as an operator writes it, with the admin and circles lists.
        let hash = await PasswordHashing.hash(password, cost: 4)
        var text = "users:\n"
        for account in accounts {
            text += "  \(account.name):\n    password: \"\(hash)\"\n    admin: [\(account.admin.joined(separator: ", "))]\n"
            if let list = account.circles { text += "    circles: [\(list.joined(separator: ", "))]\n" }
        }
        try text.write(to: directory.appendingPathComponent("users.yaml"), atomically: true, encoding: .utf8)
        _ = try UsersFile.load(path: directory.appendingPathComponent("users.yaml").path)  // as the subscriber will read it

        let broker: Broker
        let accountArguments: [String]
        if dynamicSecurity {
            broker = try await DynsecBroker.start().broker
            let adminPassword = directory.appendingPathComponent("admin.password")
            try "admin-pw\n".write(to: adminPassword, atomically: true, encoding: .utf8)
            // The subscriber's account, as `whereabouts-sub dynsec` makes it in production.
            try ToolRun.runChecked(executable, [
                "dynsec", "--circles", circles.path, "--broker", "mqtt://127.0.0.1:\(broker.port)", "--username", "admin",
                "--client-id", "admin", "--password-file", adminPassword.path, "--password-dir", passwords.path,
            ])
            accountArguments = [
                "--invite-accounts", "dynsec", "--invite-password-dir", passwords.path, "--invite-dynsec-username", "admin",
                "--invite-dynsec-password-file", adminPassword.path,
            ]
        } else {
            // The subscriber's own account, and the ACL `whereabouts-sub acl` generates for the file.
            let acl = directory.appendingPathComponent("acl"), passwd = directory.appendingPathComponent("passwd")
            try "subscriber-password\n".write(to: passwords.appendingPathComponent("whereabouts-sub"), atomically: true, encoding: .utf8)
            try ToolRun.runChecked("/usr/bin/mosquitto_passwd", ["-c", "-b", passwd.path, "whereabouts-sub", "subscriber-password"])
            try ToolRun.runChecked(executable, ["acl", "--circles", circles.path, "--output", acl.path])
            broker = try await Broker.start(.init(allowAnonymous: false, passwordFile: passwd.path, aclFile: acl.path))
            // Its process id, for --invite-reload-pid-file: the process started with this broker's own configuration file.
            let pid = try await ToolRun.run("/usr/bin/pgrep", ["-f", "-x", "/usr/sbin/mosquitto -c \(broker.configurationFile.path)"])
            try #require(pid.status == 0, "no mosquitto process for \(broker.configurationFile.path)")
            let pidFile = directory.appendingPathComponent("mosquitto.pid")
            try pid.stdout.write(to: pidFile, atomically: true, encoding: .utf8)
            accountArguments = [
                "--invite-accounts", "mosquitto", "--invite-password-dir", passwords.path,
                "--invite-acl-file", acl.path, "--invite-mosquitto-password-file", passwd.path, "--invite-reload-pid-file", pidFile.path,
            ]
        }

        let port = try FreePort.find()
        let log = directory.appendingPathComponent("sub.log")
        let subscriber = try ChildProcess.spawn(executable, [
            "--circles", circles.path, "--broker", "mqtt://127.0.0.1:\(broker.port)", "--username", "whereabouts-sub",
            "--client-id", "whereabouts-sub", "--password-file", passwords.appendingPathComponent("whereabouts-sub").path,
            "--state-file", "none", "--view-interval", "0.2", "--log-level", "info",
            "--http-port", "\(port)", "--users", directory.appendingPathComponent("users.yaml").path,
            "--invite-app-broker", appBroker ?? "mqtt://127.0.0.1:\(broker.port)",
        ] + accountArguments, logFile: log)
        let rig = InviteRig(directory: directory, broker: broker, subscriber: subscriber, port: port)
        try await waitUntil("the subscriber's dashboard and subscriptions") {
            guard subscriber.isRunning else { throw InviteRigError.exited(rig.logText()) }
            let text = rig.logText()
            return text.contains("Dashboard listening") && text.contains("Subscribed to the circles' members.")
        }
        return rig
    }

    func logText() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// How many times mosquitto has reloaded its configuration (SIGHUP).
    func reloads() -> Int { broker.logTail(lines: 100_000).components(separatedBy: "Reloading config.").count - 1 }

    /// `Authorization: Basic` for `name` with the test password.
    static func basic(_ name: String) -> String {
        "Authorization: Basic " + Data("\(name):\(password)".utf8).base64EncodedString()
    }

    /// `POST /api/circles/<circle>/invites` as `account`, from the dashboard's own page.
    func invite(_ user: String, _ device: String, circle: String, as account: String, headers: [String]? = nil) async throws -> LoginHTTP.Answer {
        let body = try JSONSerialization.data(withJSONObject: ["user": user, "device": device])
        return try await http.send(
            "/api/circles/\(circle)/invites", method: "POST",
            headers: headers ?? [Self.basic(account), "Content-Type: application/json", "Origin: http://127.0.0.1:\(port)"],
            body: String(decoding: body, as: UTF8.self))
    }

    /// `DELETE /api/circles/<circle>/invites/<user>/<device>` as `account`.
    func revoke(_ user: String, _ device: String, circle: String, as account: String) async throws -> LoginHTTP.Answer {
        try await http.send("/api/circles/\(circle)/invites/\(user)/\(device)", method: "DELETE", headers: [Self.basic(account), "Origin: http://127.0.0.1:\(port)"])
    }

    /// Runs the app script with `configuration` (the `.otrc` text) shaped as `shape`.
    func app(_ otrc: String, shape: String, _ arguments: [String]) async throws -> ToolRun.Output {
        let file = directory.appendingPathComponent("app-\(UUID().uuidString.prefix(8)).json")
        try otrc.write(to: file, atomically: true, encoding: .utf8)
        return try await ToolRun.run("/usr/bin/timeout", ["-s", "KILL", "60", "/usr/bin/python3", Self.app, file.path, "--shape", shape] + arguments)
    }

    func stop() async {
        subscriber.signal(SIGTERM)
        _ = try? await withTimeout(.seconds(10), "the subscriber to exit") { await subscriber.waitForExit() }
        subscriber.signal(SIGKILL)
        await broker.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

enum InviteRigError: Error, CustomStringConvertible {
    case exited(String)
    var description: String {
        switch self {
        case .exited(let log): "whereabouts-sub exited:\n\(log)"
        }
    }
}
