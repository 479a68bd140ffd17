@testable import Dashboard
import Testing

@Suite("Which Host and Origin headers the dashboard answers")
struct RequestOriginPolicyTests {
    static let loopback = RequestOriginPolicy(bindHost: "127.0.0.1", allowedHosts: [], allowedOrigins: [])

    @Test("IP addresses, localhost and names under .localhost are answered, with any port", arguments: [
        "127.0.0.1:8080", "127.0.0.1", "192.168.1.20:80", "[::1]:8080", "[::1]", "localhost:8080", "LOCALHOST",
        "localhost.:8080", "dash.localhost:9000",
    ])
    func ownHosts(host: String) {
        #expect(Self.loopback.refusal(host: host, origin: nil) == nil)
    }

    @Test("Other names are refused: a rebinding page sends its own name", arguments: [
        "evil.example", "evil.example:8080", "localhost.evil.example", "127.0.0.1.evil.example:8080", "127.1:8080",
        "0x7f000001:8080", "evil-localhost:8080",
    ])
    func foreignHosts(host: String) {
        #expect(Self.loopback.refusal(host: host, origin: nil) == .foreignHost(host))
    }

    @Test("A missing or malformed Host is refused", arguments: [nil, "", ":8080", "a b", "host:port", "host:70000", "[::1", "[nope]:80", "host/x"])
    func malformedHosts(host: String?) {
        #expect(Self.loopback.refusal(host: host, origin: nil) == .malformedHost(host))
    }

    @Test("Configured names, a suffix for subdomains, the bound name, and * for any")
    func configuredNames() {
        let policy = RequestOriginPolicy(bindHost: "gateway.lan", allowedHosts: ["Dash.Example.org", ".fleet.example"], allowedOrigins: [])
        #expect(policy.refusal(host: "dash.example.org", origin: nil) == nil)
        #expect(policy.refusal(host: "DASH.example.org:443", origin: nil) == nil)
        #expect(policy.refusal(host: "a.fleet.example", origin: nil) == nil)
        #expect(policy.refusal(host: "gateway.lan:8080", origin: nil) == nil)
        #expect(policy.refusal(host: "fleet.example", origin: nil) == .foreignHost("fleet.example"))
        #expect(policy.refusal(host: "evilfleet.example", origin: nil) == .foreignHost("evilfleet.example"))
        #expect(policy.refusal(host: "other.example.org", origin: nil) == .foreignHost("other.example.org"))
        let any = RequestOriginPolicy(bindHost: "0.0.0.0", allowedHosts: ["*"], allowedOrigins: [])
        #expect(any.refusal(host: "whatever.example", origin: nil) == nil)
    }

    @Test("An Origin must be the dashboard's own host and port, or an allowed origin")
    func origins() {
        #expect(Self.loopback.refusal(host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080") == nil)
        #expect(Self.loopback.refusal(host: "localhost:8080", origin: "http://LOCALHOST:8080") == nil)
        #expect(Self.loopback.refusal(host: "[::1]:8080", origin: "http://[::1]:8080") == nil)
        #expect(Self.loopback.refusal(host: "127.0.0.1:8080", origin: "https://127.0.0.1:8080") == nil)
        for foreign in ["http://evil.example", "http://127.0.0.1:8081", "http://localhost:8080", "null", "file://", "http://127.0.0.1:8080.evil.example"] {
            #expect(Self.loopback.refusal(host: "127.0.0.1:8080", origin: foreign) == .foreignOrigin(foreign), "\(foreign)")
        }
        // Not browsers: swift-websocket's client sends its URL's origin, without the port.
        #expect(Self.loopback.refusal(host: "127.0.0.1:8080", origin: "ws://127.0.0.1") == nil)
        #expect(Self.loopback.refusal(host: "127.0.0.1:8080", origin: "ws://evil.example") == .foreignOrigin("ws://evil.example"))
        // Several Origin headers: each must pass.
        #expect(Self.loopback.refusal(host: "127.0.0.1:8080", origins: ["ws://127.0.0.1", "http://evil.example"]) == .foreignOrigin("http://evil.example"))
        let proxied = RequestOriginPolicy(bindHost: "127.0.0.1", allowedHosts: [], allowedOrigins: ["https://Dash.example.org/"])
        #expect(proxied.refusal(host: "127.0.0.1:8080", origin: "https://dash.example.org") == nil)
        #expect(proxied.refusal(host: "127.0.0.1:8080", origin: "http://dash.example.org") == .foreignOrigin("http://dash.example.org"))
    }
}
