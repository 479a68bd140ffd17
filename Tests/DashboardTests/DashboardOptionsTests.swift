import ArgumentParser
import Dashboard
import Foundation
import DashboardOptions
import Testing

@Suite("Dashboard command-line options")
struct DashboardOptionsTests {
    @Test("The flags become the dashboard's configuration, bound to loopback by default")
    func configuration() throws {
        #expect(try DashboardOptions.parse([]).configuration(port: 8080) == DashboardConfiguration(host: "127.0.0.1", port: 8080))
        let users = FileManager.default.temporaryDirectory.appendingPathComponent("users-\(UUID().uuidString).yaml")
        try "users:\n".write(to: users, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: users) }
        let options = try DashboardOptions.parse([
            "--http-host", "0.0.0.0", "--users", users.path, "--tiles", "https://tile.openstreetmap.org/{z}/{x}/{y}.png",
            "--tiles-attribution", "© OpenStreetMap contributors", "--leaflet-dir", "/opt/leaflet",
        ])
        #expect(options.configuration(port: 8080) == DashboardConfiguration(
            host: "0.0.0.0", port: 8080,
            tileURLTemplate: "https://tile.openstreetmap.org/{z}/{x}/{y}.png",
            tileAttribution: "© OpenStreetMap contributors",
            leafletDirectory: "/opt/leaflet"
        ))
        #expect(DashboardConfiguration().leafletDirectory == "/usr/share/javascript/leaflet", "Debian's libjs-leaflet")
    }

    @Test("The earlier spellings --tile-url and --tile-attribution still work")
    func earlierSpellings() throws {
        let options = try DashboardOptions.parse([
            "--tile-url", "https://tile.example.org/{z}/{x}/{y}.png", "--tile-attribution", "© Example",
        ])
        #expect(options.tileURL == "https://tile.example.org/{z}/{x}/{y}.png")
        #expect(options.tileAttribution == "© Example")
    }

    @Test("Allowed hosts and origins go to the configuration")
    func allowed() throws {
        let options = try DashboardOptions.parse([
            "--allowed-host", "dash.example.org", "--allowed-host", ".fleet.example", "--allowed-origin", "https://dash.example.org",
        ])
        let configuration = options.configuration(port: 8080)
        #expect(configuration.allowedHosts == ["dash.example.org", ".fleet.example"])
        #expect(configuration.allowedOrigins == ["https://dash.example.org"])
    }

    @Test("Bad flags are rejected with a message naming the flag", arguments: [
        (["--http-host", " "], "--http-host must not be empty"),
        (["--tiles", "tiles/{z}/{x}/{y}.png"], "--tiles must start with https:// or http://"),
        (["--tiles", "https://t.example/{z}/{x}.png"], "lacks {y}"),
        (["--tiles-attribution", "©"], "--tiles-attribution needs --tiles"),
        (["--leaflet-dir", ""], "--leaflet-dir must not be empty"),
        (["--allowed-host", "https://dash.example.org"], "--allowed-host takes a host name without scheme or port"),
        (["--allowed-host", "dash.example.org:8080"], "--allowed-host takes a host name"),
        (["--allowed-origin", "dash.example.org"], "--allowed-origin takes an origin such as https://dash.example.org"),
        (["--allowed-origin", "https://dash.example.org/page"], "no path"),
        (["--allowed-origin", "ftp://dash.example.org"], "--allowed-origin takes an origin"),
        (["--http-host", "0.0.0.0"], "--http-host 0.0.0.0 serves the dashboard beyond this machine, so it needs logins: give --users FILE"),
        (["--http-host", "192.168.1.5"], "needs logins"),
        (["--secure-cookie"], "--secure-cookie needs --users"),
        (["--session-hours", "0"], "--session-hours must be above 0"),
        (["--users", "/nonexistent/users.yaml"], "users file /nonexistent/users.yaml: cannot be read"),
    ])
    func rejects(arguments: [String], message: String) {
        do {
            _ = try DashboardOptions.parse(arguments)
            Issue.record("\(arguments) was accepted")
        } catch {
            let text = DashboardOptions.message(for: error)
            #expect(text.contains(message), "message: \(text)")
            #expect(DashboardOptions.exitCode(for: error) == .validationFailure)
        }
    }

    @Test("Loopback addresses keep the open mode; others need --users", arguments: [
        ("127.0.0.1", true), ("127.1.2.3", true), ("::1", true), ("[::1]", true), ("localhost", true),
        ("0.0.0.0", false), ("10.0.0.5", false), ("::", false), ("127.0.0.1.example.org", false), ("example.org", false),
    ])
    func loopback(host: String, isLoopback: Bool) {
        let accepted = (try? DashboardOptions.parse(["--http-host", host])) != nil
        #expect(accepted == isLoopback, "\(host)")
    }

    @Test("Every flag has help in full sentences, and the loopback default is shown")
    func help() {
        let help = DashboardOptions.helpMessage(columns: 100)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for sentence in [
            "--http-host <http-host> The address the dashboard binds. The default keeps it private to this machine; any other address (such as 0.0.0.0, to serve the network) needs --users. (default: 127.0.0.1)",
            "--secure-cookie Mark the session cookie Secure, so browsers send it over HTTPS only.",
            "--tiles, --tile-url <url-template> Draw map tiles under the dashboard's map from this URL template with {z}, {x} and {y} (and optionally {s}), such as https://tile.openstreetmap.org/{z}/{x}/{y}.png; the page's Content-Security-Policy then admits that server's images. Without it the map is a metric grid and the page loads nothing from elsewhere.",
            "--tiles-attribution, --tile-attribution <text> The attribution the tile provider requires, shown as text in the map's corner, such as \"© OpenStreetMap contributors\".",
            "--leaflet-dir <folder> The folder holding Leaflet (leaflet.js or leaflet.min.js, and leaflet.css), the library that draws the dashboard's map. The default is where the Debian package libjs-leaflet installs it. (default: /usr/share/javascript/leaflet)",
        ] {
            #expect(help.contains(sentence), "missing from --help: \(sentence)\n\(help)")
        }
    }
}
