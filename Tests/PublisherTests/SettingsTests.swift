@testable import CommandLineSupport
import Foundation
import Testing
import WhereaboutsTestSupport
@testable import Publisher
import SystemSupport
import WhereaboutsMQTT

@Suite("Settings")
struct SettingsTests {
    @Test("Broker URLs parse with default ports", arguments: [
        ("mqtt://broker.example.org", "broker.example.org", 1883, false),
        ("mqtts://broker.example.org", "broker.example.org", 8883, true),
        ("mqtt://127.0.0.1:1884", "127.0.0.1", 1884, false),
        ("MQTTS://h:443/", "h", 443, true),
        ("mqtt://[::1]:1883", "::1", 1883, false),
    ])
    func brokerURLs(text: String, host: String, port: Int, tls: Bool) throws {
        let address = try BrokerAddress(parsing: text)
        #expect(address.host == host && address.port == port && address.usesTLS == tls)
    }

    @Test("Bad broker URLs are refused with a reason", arguments: [
        ("broker:1883", BrokerAddressError.missingScheme("broker:1883")),
        ("http://h", .unsupportedScheme("http://h", "http")),
        ("mqtt://h:0", .badPort("mqtt://h:0")),
        ("mqtt://h:port", .badPort("mqtt://h:port")),
        ("mqtt://user:pw@h", .hasCredentials("mqtt://user:pw@h")),
        ("mqtt://h/topic", .hasPath("mqtt://h/topic")),
        ("mqtt://", .badHost("mqtt://")),
    ])
    func badBrokerURLs(text: String, error: BrokerAddressError) {
        #expect(throws: error) { try BrokerAddress(parsing: text) }
    }

    @Test("The outbox defaults to the systemd state directory, then XDG, then ~/.local/state")
    func stateDirectory() {
        #expect(StateDirectory.resolve(environment: ["STATE_DIRECTORY": "/var/lib/whereabouts:/var/lib/other", "HOME": "/h"])
                == "/var/lib/whereabouts")
        #expect(StateDirectory.resolve(environment: ["XDG_STATE_HOME": "/x", "HOME": "/h"]) == "/x/whereabouts")
        #expect(StateDirectory.resolve(environment: ["HOME": "/h"]) == "/h/.local/state/whereabouts")
        #expect(StateDirectory.defaultOutboxPath(user: "Alice", device: "Phone", environment: ["HOME": "/h"])
                == "/h/.local/state/whereabouts/outbox-alice-phone.sqlite")
        // The topic keeps the names exactly (the apps and the access control do); the file name stays lower-case.
        #expect(PublisherSettings.defaultTopicBase(user: "Alice", device: "Phone") == "owntracks/Alice/Phone")
    }

    @Test("A name from outside (the subscriber's client id) becomes one file in the state directory, never a path")
    func stateFileNames() {
        #expect(StateDirectory.fileName("whereabouts-sub-1") == "whereabouts-sub-1")
        #expect(StateDirectory.fileName("site/a") == "site%2Fa")
        #expect(StateDirectory.fileName("../../etc/x") == "%2E.%2F..%2Fetc%2Fx")
        #expect(StateDirectory.fileName(".hidden") == "%2Ehidden")
        #expect(StateDirectory.fileName("50%/b") == "50%25%2Fb")
        // Distinct names stay distinct: the escape character is escaped too.
        #expect(StateDirectory.fileName("a%2Fb") != StateDirectory.fileName("a/b"))
    }

    @Test("The password comes from the file's first line, else the environment; errors never show it")
    func password() throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write("s3cret\r\nignored\n", to: "password")
        #expect(try Password.resolve(file: file, environment: [Password.environmentVariable: "env"]) == "s3cret")
        #expect(try Password.resolve(file: nil, environment: [Password.environmentVariable: "env"]) == "env")
        #expect(try Password.resolve(file: nil, environment: [:]) == nil)
        let empty = try dir.write("\n", to: "empty")
        #expect(throws: PasswordError.empty(path: empty)) { try Password.resolve(file: empty, environment: [:]) }
        #expect(throws: PasswordError.self) { try Password.resolve(file: dir.path("missing"), environment: [:]) }
    }
}
