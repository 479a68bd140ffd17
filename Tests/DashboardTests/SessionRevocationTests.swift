@testable import Dashboard
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import Logging
@testable import Subscriber
import Synchronization
import Testing
import WhereaboutsCore
import WhereaboutsTestSupport

/// Issue 24: an open WebSocket outlived the access that opened it. Measured on main: after
/// logout, a password change or the account's removal from the users file, bob's open `/ws` (and
/// the Recorder's `/ws/last`) kept streaming positions; only the token itself was refused. Here a
/// real WebSocket client holds the live dashboard's sockets, the access ends, and the socket must
/// close with 1008 within a second, while another account's socket stays open and keeps
/// receiving.
@Suite("Dashboard: WebSockets close when their access ends", .serialized)
struct SessionRevocationTests {
    static let password = "a long test password"

    /// How access ends in a case.
    enum Ending: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case logout, passwordChanged, accountRemoved
        var testDescription: String { rawValue }
    }

    /// How the socket was opened.
    enum Opening: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// `/ws` with the session cookie of the login form.
        case cookie
        /// `/api/circles/family/ws` with a bearer token from `POST /api/login`.
        case bearer
        /// The Recorder's `/ws/last` with HTTP basic credentials.
        case basic
        var testDescription: String { rawValue }
        var path: String {
            switch self {
            case .cookie: "/ws"
            case .bearer: "/api/circles/family/ws"
            case .basic: "/ws/last"
            }
        }
    }

    /// A live dashboard with logins (alice and bob, both in `family`) and a history, and its
    /// users file.
    static func withDashboard(_ body: @escaping @Sendable (_ port: Int, _ users: URL, _ store: CircleViewStore) async throws -> Void) async throws {
        let directory = try TestPaths.makeTemporaryDirectory()
        var logger = Logger(label: "SessionRevocationTests")
        logger.logLevel = .critical
        let now = Int(Date().timeIntervalSince1970)
        var configuration = DashboardConfiguration(port: 0)
        configuration.history = try await Fixtures.history([
            HistoryRow.location(Fixtures.bob.id, LocationMessage(tid: "bo", tst: now - 60, lat: 52.668, lon: -8.62, acc: 8), receivedAt: Double(now - 60)),
        ], in: directory, logger: logger)
        let (authenticator, users) = try await Fixtures.logins(["alice", "bob"], password: password, in: directory, logger: logger)
        configuration.login = authenticator
        let store = await Fixtures.store()
        let app = DashboardApplication.make(source: store, configuration: configuration, logger: logger)
        try await app.test(.live) { client in
            try await body(try #require(client.port), users, store)
        }
    }

    /// A bearer token of `user` from `POST /api/login`.
    static func token(_ user: String, port: Int) async throws -> String {
        let answer = try await LoginHTTP(port: port).send(
            "/api/login", method: "POST", headers: ["Content-Type: application/json"], body: #"{"user":"\#(user)","password":"\#(password)"}"#)
        return try #require(answer.object?["token"] as? String, "login of \(user): \(answer.status) \(answer.body)")
    }

    /// One open socket, watched: whether it opened, what it received, how it closed.
    final class Watched: Sendable {
        private final class Progress: Sendable {
            let opened = Mutex(false)
            let messages = Mutex(0)
            let closedAt = Mutex<ContinuousClock.Instant?>(nil)
        }

        private let progress: Progress
        let task: Task<WebSocketCloseFrame?, any Error>

        init(url: String, headers: HTTPFields, sendLast: Bool) {
            let progress = Progress()
            self.progress = progress
            task = Task {
                defer { progress.closedAt.withLock { $0 = .now } }
                return try await WebSocketClient.connect(url: url, configuration: .init(additionalHeaders: headers), logger: Logger(label: "ws")) { inbound, outbound, _ in
                    progress.opened.withLock { $0 = true }
                    if sendLast { try await outbound.write(.text("LAST")) }
                    for try await _ in inbound.messages(maxSize: 1 << 22) { progress.messages.withLock { $0 += 1 } }
                }
            }
        }

        /// Messages received so far.
        var messages: Int { progress.messages.withLock { $0 } }
        /// When the connection ended, if it has.
        var closedAt: ContinuousClock.Instant? { progress.closedAt.withLock { $0 } }

        /// Waits until the socket is open and has received `count` messages.
        func waitForMessages(_ count: Int, _ what: String) async throws {
            let progress = progress
            try await waitUntil(what, timeout: .seconds(20), interval: .milliseconds(20)) {
                progress.opened.withLock { $0 } && progress.messages.withLock { $0 } >= count || progress.closedAt.withLock { $0 } != nil
            }
            if closedAt != nil {
                let result = await task.result
                Issue.record("\(what): the socket ended first: \(result)")
            }
        }
    }

    @Test("An open WebSocket closes within a second when its access ends; another account's stays open",
          arguments: Ending.allCases, Opening.allCases)
    func closesWhenAccessEnds(ending: Ending, opening: Opening) async throws {
        try await Self.withDashboard { port, users, store in
            let base = "ws://127.0.0.1:\(port)"
            var headers: HTTPFields = [:]
            var bobToken = ""  // the session a logout ends (none for basic)
            switch opening {
            case .cookie:
                let form = try await LoginHTTP(port: port).formLogin(user: "bob", password: Self.password)
                bobToken = try #require(LoginHTTP.sessionToken(form), "form login: \(form.status)")
                headers[.cookie] = "whereabouts_session=\(bobToken)"
            case .bearer:
                bobToken = try await Self.token("bob", port: port)
                headers[.authorization] = "Bearer \(bobToken)"
            case .basic:
                headers[.authorization] = "Basic \(Data("bob:\(Self.password)".utf8).base64EncodedString())"
            }
            let aliceToken = try await Self.token("alice", port: port)
            let bob = Watched(url: base + opening.path, headers: headers, sendLast: opening == .basic)
            let alice = Watched(url: base + "/ws", headers: [.authorization: "Bearer \(aliceToken)"], sendLast: false)
            try await bob.waitForMessages(1, "bob's first message")
            try await alice.waitForMessages(1, "alice's first view")

            switch ending {
            case .logout:
                var logout = ["Content-Length: 0"]
                switch opening {
                case .cookie: logout.append("Cookie: whereabouts_session=\(bobToken)")
                case .bearer: logout.append("Authorization: Bearer \(bobToken)")
                case .basic:  // no session to end: logging out ends nothing, so the socket must stay (checked below)
                    logout.append("Authorization: Basic \(Data("bob:\(Self.password)".utf8).base64EncodedString())")
                }
                #expect(try await LoginHTTP(port: port).send("/logout", method: "POST", headers: logout).status == 303)
            case .passwordChanged:
                let hash = await PasswordHashing.hash("another long password", cost: 4)
                try UsersFile.load(path: users.path).settingPassword(hash, for: "bob").write(to: users.path)
            case .accountRemoved:
                let remaining = try UsersFile.load(path: users.path).accounts.filter { $0.key != "bob" }
                try UsersFile(accounts: remaining).write(to: users.path)
            }

            // The access has ended once the logout was answered or the users file was written (a
            // logout closes the socket before its own answer arrives: the time can be below zero).
            let ended = ContinuousClock.now
            if ending == .logout, opening == .basic {
                // Basic credentials are no session: the socket stays and keeps receiving.
                try await Fixtures.move(Fixtures.alice, in: store, to: 52.6641, -8.6267)
                try await alice.waitForMessages(2, "alice's next view")
                #expect(bob.closedAt == nil, "bob's basic-auth socket closed on someone's logout")
                bob.task.cancel()
                alice.task.cancel()
                return
            }
            let close = try await withTimeout(.seconds(10), "bob's socket to close") { try await bob.task.value }
            let took = try #require(bob.closedAt) - ended
            // The goal is within a second (alone: at once for a logout, within the 250 ms users-file
            // poll otherwise). The whole suite in parallel on two cores took 1.8 s once and 3.1 s
            // once (CI, counting the logout request itself), so the check allows 5 s from the
            // moment the access ended. A socket that kept streaming would hit the 10 s wait above.
            print("WebSocket closed \(took) after the access ended (\(ending), \(opening))")
            #expect(took < .seconds(5), "closed \(took) after the access ended")
            #expect(close?.closeCode == .policyViolation && close?.reason == "access ended", "\(String(describing: close))")

            // alice's socket was not touched: it is open and gets the next view.
            let before = alice.messages
            try await Fixtures.move(Fixtures.alice, in: store, to: 52.6641, -8.6267)
            try await alice.waitForMessages(before + 1, "alice's next view")
            #expect(alice.closedAt == nil)
            alice.task.cancel()

            // The same credentials cannot open a new socket.
            let again = try await RawHTTP.send(port: port, RawHTTP.upgrade(opening.path, host: "127.0.0.1:\(port)", origin: nil) + headers.map { "\($0.name): \($0.value)" })
            #expect(again.status != 101 && again.status >= 400, "\(again.text.prefix(200))")
        }
    }
}
