import Subscriber
@testable import Dashboard
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@Suite("Dashboard HTTP API")
struct APITests {
    struct ErrorBody: Decodable, Equatable {
        var error: String
        var message: String
    }

    struct Summary: Decodable, Equatable {
        var id: String
        var name: String
        var members: Int
        var status: [String: Int]
    }

    struct TrailBody: Decodable {
        struct Point: Decodable, Equatable { var tst: Int; var lat: Double; var lon: Double }
        var circle: String
        var user: String
        var device: String
        var trail: [Point]
    }

    static func application(
        _ store: CircleViewStore,
        configuration: DashboardConfiguration = .init(port: 0)
    ) -> some ApplicationProtocol {
        DashboardApplication.make(source: store, configuration: configuration, logger: Logger(label: "DashboardTests"))
    }

    @Test("GET /api/circles lists every circle with member and status counts")
    func listCircles() async throws {
        let store = await Fixtures.store()
        try await Self.application(store).test(.router) { client in
            try await client.execute(uri: "/api/circles", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
                let body = try JSONDecoder().decode([String: [Summary]].self, from: Data(buffer: response.body))
                #expect(body["circles"] == [
                    Summary(id: "family", name: "Family", members: 4,
                            status: ["online": 1, "stationary": 0, "overdue": 0, "stale": 1, "offline": 1, "gone": 0, "unknown": 1]),
                    Summary(id: "team", name: "Field team", members: 2,
                            status: ["online": 2, "stationary": 0, "overdue": 0, "stale": 0, "offline": 0, "gone": 0, "unknown": 0]),
                ])
            }
        }
    }

    @Test("GET /api/circles/<id> serves the view exactly as the contract encodes it")
    func viewByID() async throws {
        let store = await Fixtures.store()
        let before = try #require(await store.view(id: "family"))
        try await Self.application(store).test(.router) { client in
            try await client.execute(uri: "/api/circles/family", method: .get) { response in
                #expect(response.status == .ok)
                let data = Data(buffer: response.body)
                var served = try JSONDecoder().decode(CircleView.self, from: data)
                #expect(served.generatedAt >= before.generatedAt)
                // Only the clock moved between the two: ages and statuses are computed per request.
                served.generatedAt = before.generatedAt
                for index in served.members.indices {
                    served.members[index].age = before.members[index].age
                }
                #expect(served == before)
                let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                #expect(object["_type"] as? String == "view")
                let members = try #require(object["members"] as? [[String: Any]])
                #expect(members.map { $0["user"] as? String } == ["alice", "bob", "carol", "dave"])
                #expect(members[3]["fix"] is NSNull)
                #expect(members.map { $0["status"] as? String } == ["online", "stale", "offline", "unknown"])
                let fix = try #require(members[0]["fix"] as? [String: Any])
                #expect(fix["lat"] as? Double == 52.6638)
            }
        }
    }

    @Test("GET /api/circles/<id>/members/<user>/<device>/trail serves one member's trail")
    func trail() async throws {
        let now = Date()
        let store = await Fixtures.store(now: now)
        let t = Int(now.timeIntervalSince1970)
        try await Self.application(store).test(.router) { client in
            try await client.execute(uri: "/api/circles/family/members/alice/phone/trail", method: .get) { response in
                #expect(response.status == .ok)
                let body = try JSONDecoder().decode(TrailBody.self, from: Data(buffer: response.body))
                #expect(body.circle == "family" && body.user == "alice" && body.device == "phone")
                #expect(body.trail.map(\.lat) == [52.6610, 52.6620, 52.6630, 52.6638])
                #expect(body.trail.map(\.tst) == [t - 60, t - 40, t - 20, t - 3])
            }
        }
    }

    @Test("Unknown circles, members and paths answer 404 with a JSON error", arguments: [
        ("/api/circles/nope", "circle_not_found"),
        ("/api/circles/nope/members/alice/phone/trail", "circle_not_found"),
        ("/api/circles/family/members/alice/tablet/trail", "member_not_found"),
        ("/api/circles/family/members/zed/phone/trail", "member_not_found"),
        ("/api/nothing/here", "not_found"),
    ])
    func notFound(path: String, code: String) async throws {
        let store = await Fixtures.store()
        try await Self.application(store).test(.router) { client in
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
                let body = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body))
                #expect(body.error == code)
                #expect(!body.message.isEmpty)
            }
        }
    }

    @Test("GET /healthz answers ok")
    func health() async throws {
        try await Self.application(await Fixtures.store()).test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == #"{"status":"ok"}"#)
            }
        }
    }

    @Test("GET / serves a page that loads nothing from elsewhere")
    func pageIsSelfContained() async throws {
        try await Self.application(await Fixtures.store()).test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                let policy = try #require(response.headers[.contentSecurityPolicy])
                #expect(policy.contains("default-src 'none'") && policy.contains("img-src 'self' data:;"))
                #expect(policy.contains("script-src 'self';") && !policy.contains("unsafe-inline"))
                let html = String(buffer: response.body)
                #expect(html.contains(#"<meta name="viewport" content="width=device-width"#))
                #expect(html.contains(#""tileURL":null"#) || !html.contains(#""tileURL""#))
                // No script, stylesheet, font or image from another origin (PageAssetTests checks
                // the files it references).
                let absolute = html.ranges(of: /(?:src|href)\s*=\s*["']?(?:https?:)?\/\//).count
                #expect(absolute == 0)
                #expect(!html.contains("@import"))
                #expect(!html.contains("http://") && !html.contains("https://"))
            }
        }
    }

    @Test("A configured tile URL and title reach the page, escaped")
    func pageSettings() async throws {
        let configuration = DashboardConfiguration(
            port: 0,
            tileURLTemplate: "https://{s}.tile.example.org/{z}/{x}/{y}.png",
            tileAttribution: "© Example</script>",
            title: "Team <b>map</b>"
        )
        try await Self.application(await Fixtures.store(), configuration: configuration).test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                let html = String(buffer: response.body)
                #expect(html.contains(#""tileURL":"https:\/\/{s}.tile.example.org\/{z}\/{x}\/{y}.png""#))
                #expect(response.headers[.contentSecurityPolicy]?.contains("img-src 'self' data: https://*.tile.example.org;") == true)
                #expect(html.contains(#""tileAttribution":"© Example\u003c\/script>""#))
                #expect(!html.contains("Example</script>"))
                #expect(html.contains("<title>Team &lt;b&gt;map&lt;/b&gt;</title>"))
            }
        }
    }
}
