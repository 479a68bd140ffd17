import Foundation
import HummingbirdWSClient
import Logging
import Synchronization
import Testing
import WhereaboutsTestSupport

/// The real `whereabouts-sub` with `--users`: no credentials, wrong passwords, forged and stolen
/// cookies, every route and the WebSockets scoped to the account's circles, and the rate limit.
@Suite("whereabouts-sub process: dashboard login", .serialized)
struct LoginProcessTests {
    static let enabled = LoginRig.executable != nil
    static let password = LoginRig.password

    @Test("Without credentials every route and WebSocket answers 401; the page sends to /login", .enabled(if: enabled))
    func noCredentials() async throws {
        try await LoginRig.with { rig in
            for path in ["/api/circles", "/api/circles/family", "/api/circles/family/members/alice/phone/trail", "/api/0/version",
                         "/api/0/list", "/api/0/last", "/api/0/locations?user=alice&device=phone", "/metrics", "/healthz",
                         "/assets/live.js", "/api/me", "/nothing-here", "/api/circles/nosuch"] {
                let answer = try await rig.http.send(path)
                #expect(answer.status == 401, "\(path)")
                #expect(answer.error == "login_required", "\(path): \(answer.body)")
                #expect(answer.headers["www-authenticate"]?.hasPrefix("Basic realm=") == true, "\(path)")
                #expect(!answer.body.contains("alice") && !answer.body.contains("52.66"), "\(path) leaked: \(answer.body)")
            }
            let page = try await rig.http.send("/")
            #expect(page.status == 303 && page.headers["location"] == "/login")
            let form = try await rig.http.send("/login")
            #expect(form.status == 200 && form.body.contains("name=\"password\"") && form.body.contains("action=\"/login\""))
            #expect(form.headers["content-security-policy"]?.contains("default-src 'none'") == true)
            for path in ["/ws", "/api/circles/family/ws"] {
                let upgrade = try await RawHTTP.send(port: rig.http.port, RawHTTP.upgrade(path, host: "127.0.0.1:\(rig.http.port)", origin: nil))
                #expect(upgrade.status == 401, "\(path): \(upgrade.text.prefix(400))")
            }
        }
    }

    @Test("Wrong password, unknown user, forged, tampered and logged-out cookies are refused alike", .enabled(if: enabled))
    func refusals() async throws {
        try await LoginRig.with { rig in
            let wrong = try await rig.http.formLogin(user: "alice", password: "not the password")
            #expect(wrong.status == 401 && LoginHTTP.sessionToken(wrong) == nil)
            #expect(wrong.body.contains("The user name or password is wrong."))
            let unknown = try await rig.http.formLogin(user: "mallory", password: Self.password)
            #expect(unknown.status == 401 && unknown.body == wrong.body, "an unknown name must look like a wrong password")
            let basicWrong = try await rig.http.get("/api/circles", user: "alice", password: "nope")
            let basicUnknown = try await rig.http.get("/api/circles", user: "mallory", password: "nope")
            #expect(basicWrong.status == 401 && basicWrong.error == "login_refused" && basicUnknown.body == basicWrong.body)
            let badHeader = try await rig.http.send("/api/circles", headers: ["Authorization: Digest username=alice"])
            #expect(badHeader.status == 401 && badHeader.error == "bad_authorization")

            let login = try await rig.http.formLogin(user: "alice", password: Self.password)
            #expect(login.status == 303 && login.headers["location"] == "/")
            let cookie = try #require(login.headers["set-cookie"])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/") && !cookie.contains("Secure"))
            let token = try #require(LoginHTTP.sessionToken(login))
            #expect(token.count == 64, "a 256-bit token")
            #expect(try await rig.http.get("/api/circles", cookie: token).status == 200)
            #expect(try await rig.http.send("/", headers: ["Cookie: whereabouts_session=\(token)"]).status == 200)

            let forged = String(repeating: "0", count: 64)
            var tampered = Array(token)
            tampered[63] = tampered[63] == "a" ? "b" : "a"
            for bad in [forged, String(tampered), "../../etc/passwd", token + "0"] {
                let answer = try await rig.http.get("/api/circles", cookie: bad)
                #expect(answer.status == 401 && answer.error == "session_invalid", "cookie '\(bad)': \(answer.body)")
                #expect(try await rig.http.get("/api/0/list", bearer: bad.isEmpty ? "x" : bad).status == 401)
            }
            #expect(try await rig.http.get("/api/circles", cookie: "").status == 401)
            // A stolen cookie stops working once its owner logs out.
            let logout = try await rig.http.send("/logout", method: "POST", headers: ["Cookie: whereabouts_session=\(token)"], body: "")
            #expect(logout.status == 303 && logout.headers["set-cookie"]?.contains("Max-Age=0") == true)
            #expect(try await rig.http.get("/api/circles", cookie: token).status == 401)

            // A bearer token from /api/login works until the password changes.
            let api = try await rig.http.send("/api/login", method: "POST", headers: ["Content-Type: application/json"],
                                              body: #"{"user":"alice","password":"\#(Self.password)"}"#)
            let bearer = try #require(api.object?["token"] as? String)
            #expect(api.status == 200 && api.object?["user"] as? String == "alice")
            #expect(try await rig.http.get("/api/0/list", bearer: bearer).status == 200)
            let changed = try await LoginRig.passwd(rig.users, user: "alice", password: "a brand new password")
            #expect(changed.status == 0, "\(changed.stderr)")
            try await waitUntil("the changed password to end the session", timeout: .seconds(10)) {
                try await rig.http.get("/api/0/list", bearer: bearer).status == 401
            }
            #expect(try await rig.http.get("/api/circles", user: "alice", password: "a brand new password").status == 200)
            #expect(try await rig.http.get("/api/circles", user: "alice", password: Self.password).status == 401)
        }
    }

    @Test("Each account sees only its circles and the history it may read, by every route", .enabled(if: enabled))
    func scoping() async throws {
        try await LoginRig.with { rig in
            func ids(_ answer: LoginHTTP.Answer) -> [String] {
                ((answer.object?["circles"] as? [[String: Any]]) ?? []).compactMap { ($0["circle"] as? [String: Any])?["id"] as? String ?? $0["id"] as? String }
            }
            func results(_ answer: LoginHTTP.Answer) -> [String] { answer.object?["results"] as? [String] ?? [] }
            func lastUsers(_ answer: LoginHTTP.Answer) -> [String] { (answer.array ?? []).compactMap { $0["username"] as? String } }
            let p = Self.password

            // alice: a member of family (from the circles file); reads only her own history.
            #expect(ids(try await rig.http.get("/api/circles", user: "alice", password: p)) == ["family"])
            let unknownCircle = try await rig.http.get("/api/circles/nosuch", user: "alice", password: p)
            for path in ["/api/circles/work", "/api/circles/work/members/carol/laptop/trail", "/api/circles/work/members/carol/laptop/face"] {
                let answer = try await rig.http.get(path, user: "alice", password: p)
                #expect(answer.status == 404 && answer.error == "circle_not_found", "\(path): \(answer.body)")
                #expect(answer.body == unknownCircle.body.replacingOccurrences(of: "nosuch", with: "work"), "\(path) must look like an unknown circle")
            }
            #expect(try await rig.http.get("/api/circles/family", user: "alice", password: p).body.contains("\"bob\""))
            #expect(results(try await rig.http.get("/api/0/list", user: "alice", password: p)) == ["alice"])
            #expect(lastUsers(try await rig.http.get("/api/0/last", user: "alice", password: p)) == ["alice"])
            let aliceOwn = try await rig.http.get("/api/0/locations?user=alice&device=phone", user: "alice", password: p)
            #expect(aliceOwn.status == 200 && aliceOwn.object?["count"] as? Int == 1)
            let unknownDevice = try await rig.http.get("/api/0/locations?user=zed&device=phone", user: "alice", password: p)
            for (user, device) in [("bob", "phone"), ("carol", "laptop")] {
                let answer = try await rig.http.get("/api/0/locations?user=\(user)&device=\(device)", user: "alice", password: p)
                #expect(answer.status == 404 && answer.error == "device_not_found")
                #expect(answer.body == unknownDevice.body.replacingOccurrences(of: "zed/phone", with: "\(user)/\(device)"))
                let list = try await rig.http.get("/api/0/list?user=\(user)", user: "alice", password: p)
                #expect(list.status == 404 && list.error == "user_not_found")
                #expect(lastUsers(try await rig.http.get("/api/0/last?user=\(user)", user: "alice", password: p)).isEmpty)
            }

            // bob: admin of family (reads alice's history too), member of work; never carol's.
            #expect(Set(ids(try await rig.http.get("/api/circles", user: "bob", password: p))) == ["family", "work"])
            #expect(results(try await rig.http.get("/api/0/list", user: "bob", password: p)) == ["alice", "bob"])
            #expect(try await rig.http.get("/api/0/locations?user=alice&device=phone", user: "bob", password: p).status == 200)
            #expect(try await rig.http.get("/api/0/locations?user=carol&device=laptop", user: "bob", password: p).status == 404)

            // carol: admin of work, where bob shares only coarse: his exact history stays his.
            #expect(results(try await rig.http.get("/api/0/list", user: "carol", password: p)) == ["carol"])
            #expect(try await rig.http.get("/api/0/locations?user=bob&device=phone", user: "carol", password: p).status == 404)
            let bobInWork = try await rig.http.get("/api/circles/work", user: "carol", password: p)
            #expect(bobInWork.body.contains("\"privacy\":\"coarse\""))

            // erin: listed in work explicitly, with no device of her own.
            #expect(ids(try await rig.http.get("/api/circles", user: "erin", password: p)) == ["work"])
            #expect(results(try await rig.http.get("/api/0/list", user: "erin", password: p)).isEmpty)
            let me = try await rig.http.get("/api/me", user: "erin", password: p)
            #expect(me.object?["user"] as? String == "erin" && me.object?["circles"] as? [String] == ["work"])

            // The WebSockets: alice's /ws carries family only; work's socket is refused to her.
            let api = try await rig.http.send("/api/login", method: "POST", headers: ["Content-Type: application/json"], body: #"{"user":"alice","password":"\#(p)"}"#)
            let token = try #require(api.object?["token"] as? String)
            let logger = Logger(label: "LoginProcessTests")
            let base = "ws://127.0.0.1:\(rig.http.port)"
            await #expect(throws: (any Error).self) {
                try await withTimeout(.seconds(30), "the refused upgrade") {
                    _ = try await WebSocketClient.connect(
                        url: "\(base)/api/circles/work/ws", configuration: .init(additionalHeaders: [.cookie: "whereabouts_session=\(token)"]), logger: logger
                    ) { _, _, _ in Issue.record("alice's upgrade to work's socket succeeded") }
                }
            }
            await #expect(throws: (any Error).self) {
                try await withTimeout(.seconds(30), "the upgrade without login") {
                    _ = try await WebSocketClient.connect(url: "\(base)/ws", logger: logger) { _, _, _ in Issue.record("an upgrade without login succeeded") }
                }
            }
            let seen = Mutex<[String]>([])
            let newTst = Int(Date().timeIntervalSince1970)
            try await withTimeout(.seconds(30), "alice's views") {
                _ = try await WebSocketClient.connect(
                    url: "\(base)/ws", configuration: .init(additionalHeaders: [.cookie: "whereabouts_session=\(token)"]), logger: logger
                ) { inbound, _, _ in
                    var messages = inbound.messages(maxSize: 1 << 22).makeAsyncIterator()
                    var published = false
                    while case .text(let text)? = try await messages.next() {
                        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                              let circle = (object["circle"] as? [String: Any])?["id"] as? String ?? object["circle"] as? String else { continue }
                        seen.withLock { $0.append(circle) }
                        if !published {
                            // A change in work first, then one in family: the family one must arrive, the work one never.
                            // Each moves about 110 m from the seeded fix, well under --max-speed, so neither is an outlier.
                            published = true
                            try await rig.publishLocation("owntracks/carol/laptop", tst: newTst, lat: 52.6648)
                            try await rig.publishLocation("owntracks/alice/phone", tst: newTst, lat: 52.6648)
                        }
                        // alice's new fix itself, not just any number in the view (its generatedAt can share the second).
                        let members = object["members"] as? [[String: Any]] ?? []
                        let aliceFix = members.first { $0["user"] as? String == "alice" }?["fix"] as? [String: Any]
                        if circle == "family", aliceFix?["tst"] as? Int == newTst, aliceFix?["lat"] as? Double == 52.6648 { return }
                    }
                }
            }
            let circles = seen.withLock { $0 }
            #expect(circles.contains("family") && !circles.contains("work"), "\(circles)")
        }
    }

    @Test("Failed logins are limited per account and per address (429, Retry-After) and counted", .enabled(if: enabled))
    func rateLimit() async throws {
        try await LoginRig.with { rig in
            for attempt in 1...5 {
                #expect(try await rig.http.get("/api/circles", user: "carol", password: "guess \(attempt)").status == 401)
            }
            // The sixth attempt is refused unchecked, even with the right password, by every way in.
            let limited = try await rig.http.get("/api/circles", user: "carol", password: Self.password)
            #expect(limited.status == 429 && limited.error == "too_many_attempts")
            let wait = try #require(limited.headers["retry-after"].flatMap { Int($0) })
            #expect((1...300).contains(wait))
            let form = try await rig.http.formLogin(user: "carol", password: Self.password)
            #expect(form.status == 429 && form.headers["retry-after"] != nil && LoginHTTP.sessionToken(form) == nil)
            // Other accounts still log in; carol's lock-out is hers.
            #expect(try await rig.http.get("/api/circles", user: "alice", password: Self.password).status == 200)
            let metrics = try await rig.http.get("/metrics", user: "alice", password: Self.password).body
            #expect(metrics.contains(#"whereabouts_dashboard_logins_total{result="rate_limited"} 2"#), "\(metrics.suffix(700))")
            #expect(metrics.contains(#"whereabouts_dashboard_logins_total{result="refused"} 5"#))
            #expect(rig.logText().contains("Login refused: too many failed attempts."))
            #expect(!rig.logText().contains(Self.password))

            // Per address: 20 failures over many names lock this address out for every name.
            for index in 0..<15 {
                _ = try await rig.http.get("/api/0/list", user: "spray\(index)", password: "x")
            }
            let address = try await rig.http.get("/api/circles", user: "bob", password: Self.password)
            #expect(address.status == 429 && address.headers["retry-after"] != nil)
        }
    }

    @Test("Beyond loopback without --users it refuses to start; on loopback it warns that all is open", .enabled(if: enabled))
    func startRules() async throws {
        let directory = try TestPaths.makeTemporaryDirectory()
        let circles = directory.appendingPathComponent("circles.yaml")
        try LoginRig.circles.write(to: circles, atomically: true, encoding: .utf8)
        let refused = try await ToolRun.run(LoginRig.executable!.path, [
            "--circles", circles.path, "--broker", "mqtt://127.0.0.1:1", "--http-port", "\(try FreePort.find())", "--http-host", "0.0.0.0",
        ])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("needs logins: give --users FILE"), "\(refused.stderr)")
        let badUsers = directory.appendingPathComponent("users.yaml")
        try "users:\n  alice:\n    password: hunter2\n".write(to: badUsers, atomically: true, encoding: .utf8)
        let plain = try await ToolRun.run(LoginRig.executable!.path, [
            "--circles", circles.path, "--http-port", "\(try FreePort.find())", "--users", badUsers.path,
        ])
        #expect(plain.status == 2 && plain.stderr.contains("users.alice.password is not a bcrypt hash"), "\(plain.stderr)")

        let broker = try await Broker.start()
        let log = directory.appendingPathComponent("open.log")
        let sub = try ChildProcess.spawn(LoginRig.executable!.path, [
            "--circles", circles.path, "--broker", "mqtt://\(broker.host):\(broker.port)", "--state-file", "none",
            "--http-port", "\(try FreePort.find())",
        ], logFile: log)
        try await waitUntil("the open-mode warning", timeout: .seconds(30)) {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("The dashboard has no logins (no --users file)")
        }
        sub.signal(SIGTERM)
        _ = try await withTimeout(.seconds(10), "the subscriber to exit") { await sub.waitForExit() }
        await broker.stop()
    }
}
