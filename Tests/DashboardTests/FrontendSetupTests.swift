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

/// Issue 25: the OwnTracks Frontend's own set-ups against the Recorder API.
/// - Its Docker image: nginx with the Frontend's `docker/nginx.tmpl` proxies `/api` and `/ws` to
///   an upstream named `otrecorder`, so every request arrives with `Host: otrecorder`, and the
///   browser's `Origin` is nginx's. A real nginx (Debian's `nginx-light`) runs a configuration
///   with the template's locations; before `--allowed-host otrecorder` and `--allowed-origin`,
///   everything answered 403.
/// - Served from another origin (`api.baseUrl`): real headless Chromium on one origin reads the
///   API of a dashboard on another, which needs `--cors-origin` (preflight included).
@Suite("OwnTracks Frontend set-ups: its Docker nginx, another origin", .serialized)
struct FrontendSetupTests {
    static let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let password = "a long test password"

    /// A dashboard over a history with one location of alice/phone.
    static func withDashboard(
        allowedHosts: [String] = [], allowedOrigins: [String] = [], corsOrigins: [String] = [], logins: Bool = false,
        _ body: @escaping @Sendable (Int) async throws -> Void
    ) async throws {
        let directory = try TestPaths.makeTemporaryDirectory()
        var logger = Logger(label: "FrontendSetupTests")
        logger.logLevel = .critical
        let now = Int(Date().timeIntervalSince1970)
        var configuration = DashboardConfiguration(port: 0, allowedHosts: allowedHosts, allowedOrigins: allowedOrigins, corsOrigins: corsOrigins)
        configuration.history = try await Fixtures.history([
            HistoryRow.location(Fixtures.alice.id, LocationMessage(tid: "al", tst: now - 30, lat: 52.6638, lon: -8.6267, acc: 8), receivedAt: Double(now - 30)),
        ], in: directory, logger: logger)
        if logins {
            configuration.login = try await Fixtures.logins(["alice"], password: password, in: directory, logger: logger).authenticator
        }
        let app = DashboardApplication.make(source: await Fixtures.store(), configuration: configuration, logger: logger)
        try await app.test(.live) { client in try await body(try #require(client.port)) }
    }

    /// Runs nginx configured as the Frontend's Docker image (its `docker/nginx.tmpl`: an upstream
    /// named `otrecorder`, `location /api` and `location /ws` proxied to it, WebSocket upgrade
    /// headers on `/ws`, everything else the Frontend's files), in front of the dashboard on
    /// `upstream`, and serves `page` as its `index.html`; on `port` when given.
    static func withFrontendNginx(
        upstream: Int, page: String = frontendPage, port wanted: Int? = nil, _ body: @escaping @Sendable (Int) async throws -> Void
    ) async throws {
        let nginx = try #require(Self.nginx, "nginx is not installed; run scripts/install-deps")
        let directory = try TestPaths.makeTemporaryDirectory()
        let root = directory.appendingPathComponent("html")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try page.write(to: root.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        let port = try wanted ?? FreePort.find()
        let configuration = """
            worker_processes 1;
            daemon off;
            pid \(directory.path)/nginx.pid;
            error_log \(directory.path)/error.log info;
            events { worker_connections 64; }
            http {
                access_log \(directory.path)/access.log;
                client_body_temp_path \(directory.path)/body;
                proxy_temp_path \(directory.path)/proxy;
                fastcgi_temp_path \(directory.path)/fastcgi;
                uwsgi_temp_path \(directory.path)/uwsgi;
                scgi_temp_path \(directory.path)/scgi;
                upstream otrecorder { server 127.0.0.1:\(upstream); }
                server {
                    listen 127.0.0.1:\(port);
                    root \(root.path);
                    location /api { proxy_pass http://otrecorder/api/; }
                    location /ws {
                        proxy_pass http://otrecorder/ws/;
                        proxy_http_version 1.1;
                        proxy_set_header Upgrade $http_upgrade;
                        proxy_set_header Connection upgrade;
                    }
                    location / { try_files $uri $uri/index.html; }
                }
            }
            """
        let file = directory.appendingPathComponent("nginx.conf")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        let process = try ChildProcess.spawn(nginx, ["-p", directory.path, "-c", file.path], logFile: directory.appendingPathComponent("stderr.log"))
        defer {
            process.signal(SIGKILL)
        }
        try await waitUntil("nginx to listen", timeout: .seconds(20)) { LoopbackSocket.isOpen(port: port) || !process.isRunning }
        #expect(process.isRunning, "nginx: \((try? String(contentsOf: directory.appendingPathComponent("stderr.log"), encoding: .utf8)) ?? "")")
        try await body(port)
        process.signal(SIGTERM)
        _ = try? await withTimeout(.seconds(10), "nginx to exit") { await process.waitForExit() }
    }

    /// What the Frontend does first (its `src/api.js`): `GET /api/0/last` and `/api/0/list` from
    /// its own origin, then `/ws/last` on its own host, sending `LAST`.
    static let frontendPage = """
        <!doctype html><html><body><pre id="out"></pre><script>
        window.result = (async () => {
          const out = {};
          const last = await fetch("/api/0/last");
          out.last = last.status; out.lastBody = await last.text();
          out.list = (await fetch("/api/0/list")).status;
          out.ws = await new Promise((resolve) => {
            const ws = new WebSocket("ws://" + location.host + "/ws/last");
            ws.onopen = () => ws.send("LAST");
            ws.onmessage = (event) => { resolve(event.data); ws.close(); };
            ws.onerror = () => resolve("error");
            setTimeout(() => resolve("timeout"), 10000);
          });
          return out;
        })();
        </script></body></html>
        """

    @Test("Behind the Frontend's Docker nginx with logins: a 401 challenges for basic credentials, which then open the API and /ws/last",
          .enabled(if: nginx != nil))
    func dockerNginxWithLogins() async throws {
        let port = try FreePort.find()
        try await Self.withDashboard(allowedHosts: ["otrecorder"], allowedOrigins: ["http://127.0.0.1:\(port)"], logins: true) { upstream in
            try await Self.withFrontendNginx(upstream: upstream, port: port) { port in
                let bare = try await RawHTTP.send(port: port, ["GET /api/0/last HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"])
                #expect(bare.status == 401 && bare.text.lowercased().contains("www-authenticate: basic"), "\(bare.text.prefix(300))")
                let basic = "Authorization: Basic \(Data("alice:\(Self.password)".utf8).base64EncodedString())"
                let last = try await RawHTTP.send(port: port, ["GET /api/0/last HTTP/1.1", "Host: 127.0.0.1:\(port)", basic, "Connection: close"])
                #expect(last.status == 200 && last.body.contains("\"username\":\"alice\""), "\(last.text.prefix(300))")
                let upgrade = RawHTTP.upgrade("/ws/last", host: "127.0.0.1:\(port)", origin: "http://127.0.0.1:\(port)") + [basic]
                #expect(try await RawHTTP.send(port: port, upgrade).status == 101)
            }
        }
    }

    /// Opens `url` and waits (polling: a static page changes no DOM to wake the page's own wait)
    /// until it has loaded.
    static func open(_ page: DevToolsPage, _ url: String) async throws {
        try await page.navigate(to: url, until: "true")
        try await PageHistoryTests.waitAcrossNavigation(page, "location.href === '\(url)' && document.readyState === 'complete'")
    }

    struct FrontendResult: Decodable {
        var last: Int
        var lastBody: String
        var list: Int
        var ws: String
    }

    @Test("Behind the Frontend's Docker nginx: 403 until --allowed-host otrecorder and --allowed-origin are given, then the Frontend's calls work",
          .enabled(if: nginx != nil))
    func dockerNginx() async throws {
        // Without the flags, the protection refuses the proxied requests: the failure users saw.
        try await Self.withDashboard { upstream in
            try await Self.withFrontendNginx(upstream: upstream, page: Self.frontendPage) { port in
                let answer = try await RawHTTP.send(port: port, ["GET /api/0/last HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"])
                #expect(answer.status == 403 && answer.text.contains("forbidden_host"), "\(answer.text.prefix(300))")
            }
        }
        // The nginx port is known only once nginx runs: the dashboard is started for it second.
        let port = try FreePort.find()
        try await Self.withDashboard(allowedHosts: ["otrecorder"], allowedOrigins: ["http://127.0.0.1:\(port)"]) { upstream in
            try await Self.withFrontendNginx(upstream: upstream, port: port) { port in
                for path in ["/api/0/last", "/api/0/list", "/api/0/version", "/api/0/locations?user=alice&device=phone"] {
                    let answer = try await RawHTTP.send(port: port, ["GET \(path) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"])
                    #expect(answer.status == 200, "\(path): \(answer.text.prefix(300))")
                }
                // A foreign page's WebSocket through the same nginx is still refused.
                let foreign = try await RawHTTP.send(port: port, RawHTTP.upgrade("/ws/last", host: "127.0.0.1:\(port)", origin: "http://evil.example"))
                #expect(foreign.status == 403, "\(foreign.text.prefix(300))")
                // The Frontend's own calls in a real browser, from nginx's origin.
                if HeadlessChromium.isInstalled {
                    try await HeadlessChromium.withPage { page in
                        try await Self.open(page, "http://127.0.0.1:\(port)/")
                        let result = try await page.value(FrontendResult.self, "window.result")
                        #expect(result.last == 200 && result.lastBody.contains("\"username\":\"alice\""), "\(result)")
                        #expect(result.list == 200)
                        #expect(result.ws.contains("\"_type\":\"location\"") && result.ws.contains("\"device\":\"phone\""), "\(result.ws)")
                    }
                }
            }
        }
    }

    @Test("From another origin: with --cors-origin a page logs in (preflight), reads /api/0/last with its bearer token; without, the browser blocks it",
          .enabled(if: HeadlessChromium.isInstalled))
    func otherOrigin() async throws {
        // The page's own server: another port, so another origin.
        let pageRouter = Router()
        pageRouter.get("/") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: "<!doctype html><html><body>frontend</body></html>")))
        }
        let pageApp = Application(router: pageRouter, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await pageApp.test(.live) { pageClient in
            let pagePort = try #require(pageClient.port)
            let origin = "http://127.0.0.1:\(pagePort)"
            let script: @Sendable (Int) -> String = { api in """
                (async () => {
                  const base = "http://127.0.0.1:\(api)";
                  try {
                    const login = await fetch(base + "/api/login", { method: "POST", headers: { "Content-Type": "application/json" },
                      body: JSON.stringify({ user: "alice", password: "\(Self.password)" }) });
                    const token = (await login.json()).token;
                    const last = await fetch(base + "/api/0/last", { headers: { Authorization: "Bearer " + token } });
                    const refused = await fetch(base + "/api/0/last");
                    return "status " + last.status + " " + (await last.text()) + " refused " + refused.status;
                  } catch (e) { return "blocked: " + e; }
                })()
                """ }
            try await Self.withDashboard(corsOrigins: [origin], logins: true) { api in
                // The preflight itself, as a browser sends it: answered without a login.
                let preflight = try await RawHTTP.send(port: api, [
                    "OPTIONS /api/0/last HTTP/1.1", "Host: 127.0.0.1:\(api)", "Origin: \(origin)", "Access-Control-Request-Method: GET",
                    "Access-Control-Request-Headers: authorization", "Connection: close",
                ])
                #expect(preflight.status == 204, "\(preflight.text.prefix(300))")
                let head = preflight.text.lowercased()
                #expect(head.contains("access-control-allow-origin: \(origin)") && head.contains("access-control-allow-headers: authorization, content-type"))
                #expect(!head.contains("access-control-allow-credentials"), "cookies are never allowed across origins")
                // Any other origin is refused as before.
                let foreign = try await RawHTTP.send(port: api, ["GET /api/0/version HTTP/1.1", "Host: 127.0.0.1:\(api)", "Origin: http://evil.example", "Connection: close"])
                #expect(foreign.status == 403 && !foreign.text.lowercased().contains("access-control-allow-origin"))

                try await HeadlessChromium.withPage { page in
                    try await Self.open(page, origin + "/")
                    let text = try await page.value(String.self, script(api))
                    #expect(text.hasPrefix("status 200") && text.contains("\"username\":\"alice\""), "\(text)")
                    #expect(text.hasSuffix("refused 401"), "without the token: \(text)")
                }
            }
            // Without --cors-origin the browser keeps the answers from the page (and the origin check refuses the POST).
            try await Self.withDashboard(logins: true) { api in
                try await HeadlessChromium.withPage { page in
                    try await Self.open(page, origin + "/")
                    let text = try await page.value(String.self, script(api))
                    #expect(text.hasPrefix("blocked:"), "\(text)")
                }
            }
        }
    }
}
