import ArgumentParser
import Dashboard
import DashboardOptions
import Testing

@Suite("Dashboard command-line options")
struct DashboardOptionsTests {
    @Test("The flags become the dashboard's configuration, bound to loopback by default")
    func configuration() throws {
        #expect(try DashboardOptions.parse([]).configuration(port: 8080) == DashboardConfiguration(host: "127.0.0.1", port: 8080))
        let options = try DashboardOptions.parse([
            "--http-host", "0.0.0.0", "--tile-url", "https://tile.openstreetmap.org/{z}/{x}/{y}.png",
            "--tile-attribution", "© OpenStreetMap contributors",
        ])
        #expect(options.configuration(port: 8080) == DashboardConfiguration(
            host: "0.0.0.0", port: 8080,
            tileURLTemplate: "https://tile.openstreetmap.org/{z}/{x}/{y}.png",
            tileAttribution: "© OpenStreetMap contributors"
        ))
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
        (["--tile-url", "tiles/{z}/{x}/{y}.png"], "--tile-url must start with https:// or http://"),
        (["--tile-url", "https://t.example/{z}/{x}.png"], "lacks {y}"),
        (["--tile-attribution", "©"], "--tile-attribution needs --tile-url"),
        (["--allowed-host", "https://dash.example.org"], "--allowed-host takes a host name without scheme or port"),
        (["--allowed-host", "dash.example.org:8080"], "--allowed-host takes a host name"),
        (["--allowed-origin", "dash.example.org"], "--allowed-origin takes an origin such as https://dash.example.org"),
        (["--allowed-origin", "https://dash.example.org/page"], "no path"),
        (["--allowed-origin", "ftp://dash.example.org"], "--allowed-origin takes an origin"),
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

    @Test("Every flag has help in full sentences, and the loopback default is shown")
    func help() {
        let help = DashboardOptions.helpMessage(columns: 100)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for sentence in [
            "--http-host <http-host> The address the dashboard binds. The default keeps it private to this machine; use 0.0.0.0 to serve the network, behind a proxy that authenticates. (default: 127.0.0.1)",
            "--tile-url <tile-url> Draw map tiles on the dashboard from this URL template with {z}, {x} and {y} (and optionally {s}), such as https://tile.openstreetmap.org/{z}/{x}/{y}.png. Without it the map is a plain grid and the page loads nothing from elsewhere.",
            "--tile-attribution <tile-attribution> The attribution the tile provider requires, shown in the map's corner, such as \"© OpenStreetMap contributors\".",
        ] {
            #expect(help.contains(sentence), "missing from --help: \(sentence)\n\(help)")
        }
    }
}
