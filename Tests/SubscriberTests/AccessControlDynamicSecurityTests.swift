import Subscriber
import Foundation
import Provisioning
import Logging
import Testing
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// Client ids bound to accounts, on a real mosquitto with its dynamic security plugin, attacked
/// with the real mosquitto clients (issue 9: any account could connect as `whereabouts-sub`, kick
/// the subscriber off and discard the fix queued in its persistent session).
@Suite("Broker security with mosquitto's dynamic security plugin", .serialized, .enabled(if: DynamicSecurityBroker.pluginPath != nil))
struct AccessControlDynamicSecurityTests {
    static let circles = """
        circles:
          - id: family
            name: Family
            members:
              - user: alice
                device: phone
              - user: bob
                device: phone
        """

    @Test("A stolen client id is refused, and the fix queued for the subscriber survives")
    func stolenClientID() async throws {
        try await DynamicSecurityBroker.with(circles: Self.circles) { broker, passwords in
            let sub = ("whereabouts-sub", try passwords("whereabouts-sub"))
            // The subscriber's persistent session exists, and it is offline.
            let session = try await Tools.sub(broker, account: sub, clientID: "whereabouts-sub", clean: false, topic: "owntracks/#", count: 0, wait: 1)
            #expect(!session.output.contains("not authorised"), "the subscriber logs in: \(session.output)")
            // bob reports; the broker queues the fix for the subscriber's session.
            try await Tools.pub(broker, account: ("whereabouts-bob-phone", try passwords("whereabouts-bob-phone")), clientID: "whereabouts-bob-phone",
                          topic: "owntracks/bob/phone", message: #"{"_type":"location","tid":"bo","tst":1700000000,"lat":52.1,"lon":-8.6,"acc":5}"#)

            // alice (a member, a valid account) tries the subscriber's id, and bob's, with a clean session.
            for victim in ["whereabouts-sub", "whereabouts-bob-phone", "whereabouts-bob-phone-presence"] {
                let attack = try await Tools.sub(broker, account: ("whereabouts-alice-phone", try passwords("whereabouts-alice-phone")),
                                           clientID: victim, clean: true, topic: "owntracks/alice/#", count: 1, wait: 2)
                #expect(attack.output.contains("not authorised"), "connecting as \(victim): \(attack.output)")
            }
            // A device's presence account works under its own id only.
            let presence = ("whereabouts-bob-phone-presence", try passwords("whereabouts-bob-phone"))
            #expect(try await Tools.sub(broker, account: presence, clientID: "whereabouts-bob-phone", clean: true, topic: "owntracks/bob/#", count: 0, wait: 1)
                .output.contains("not authorised"))
            #expect(try await !Tools.sub(broker, account: presence, clientID: "whereabouts-bob-phone-presence", clean: true, topic: "owntracks/bob/#", count: 0, wait: 1)
                .output.contains("not authorised"))

            // The subscriber comes back: its queued fix is still there.
            let back = try await Tools.sub(broker, account: sub, clientID: "whereabouts-sub", clean: false, topic: "owntracks/#", count: 1, wait: 5)
            #expect(back.output.contains("\"tid\":\"bo\""), "the queued fix: \(back.output)")
        }
    }

    @Test("The real publisher logs in with its device account: its presence connection uses the -presence account and shows online", .enabled(if: TestPaths.builtExecutable(named: "whereabouts-pub") != nil))
    func publisherWithDeviceAccount() async throws {
        try await DynamicSecurityBroker.with(circles: Self.circles) { broker, passwords in
            let account = "whereabouts-alice-phone"
            _ = try passwords(account)
            let publisher = try #require(TestPaths.builtExecutable(named: "whereabouts-pub"))
            let directory = try TestPaths.makeTemporaryDirectory(prefix: "dynsec-pub")
            defer { try? FileManager.default.removeItem(at: directory) }
            let log = directory.appendingPathComponent("pub.log")
            let process = try ChildProcess.spawn(publisher.path, [
                "--source", "sim:walk?seed=1&count=100000", "--user", "alice", "--device", "phone",
                "--broker", "mqtt://\(broker.host):\(broker.port)", "--username", account,
                "--password-file", passwords.directory.appendingPathComponent(account).path,
                "--outbox", directory.appendingPathComponent("outbox.sqlite").path,
                "--power-supply-path", directory.appendingPathComponent("no-sysfs").path,
            ], logFile: log)
            defer { process.signal(SIGKILL) }
            // The retained presence, read with the subscriber's account: online, from the
            // presence connection (before the fix it was refused: its id is not the main account's).
            let sub = ("whereabouts-sub", try passwords("whereabouts-sub"))
            try await DynamicSecurityBroker.eventually("alice's presence online", timeout: .seconds(30)) {
                try await Tools.sub(broker, account: sub, clientID: "whereabouts-sub", clean: true,
                              topic: "owntracks/alice/phone/presence", count: 1, wait: 2).output.contains("\"state\":\"online\"")
            }
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            #expect(!text.contains("not authorised") && !text.contains("refused"), "no refused connection: \(text.suffix(1500))")
        }
    }

    @Test("Without bound client ids (the plain ACL file) the same attack discards the queued fix")
    func plainACLLosesTheFix() async throws {
        let file = try CirclesFile.parse(yaml: Self.circles)
        let acl = try AccessControlList(circles: file.circles).render()
        let users = ["whereabouts-sub": "sub-pw", "alice": "alice-pw", "bob": "bob-pw"]
        let broker = try await Broker.start(.init(allowAnonymous: false, users: users, acl: acl))
        let sub = ("whereabouts-sub", "sub-pw")
        _ = try await Tools.sub(broker, account: sub, clientID: "whereabouts-sub", clean: false, topic: "owntracks/#", count: 0, wait: 1)
        try await Tools.pub(broker, account: ("bob", "bob-pw"), clientID: "whereabouts-bob-phone",
                      topic: "owntracks/bob/phone", message: #"{"_type":"location","tid":"bo","tst":1700000000,"lat":52.1,"lon":-8.6,"acc":5}"#)
        let attack = try await Tools.sub(broker, account: ("alice", "alice-pw"), clientID: "whereabouts-sub", clean: true, topic: "owntracks/alice/#", count: 0, wait: 1)
        #expect(!attack.output.contains("not authorised"))
        let back = try await Tools.sub(broker, account: sub, clientID: "whereabouts-sub", clean: false, topic: "owntracks/#", count: 1, wait: 2)
        #expect(!back.output.contains("\"tid\":\"bo\""), "the plain ACL cannot stop the takeover: \(back.output)")
        await broker.stop()
    }

    @Test("Changes of the circles file are applied live: a new device can log in, a removed one cannot")
    func liveChanges() async throws {
        try await DynamicSecurityBroker.with(circles: Self.circles, watch: true) { broker, passwords in
            let carol = "whereabouts-carol-car"
            #expect(!passwords.exists(carol))
            try await DynamicSecurityBroker.rewrite(circles: """
                circles:
                  - id: family
                    name: Family
                    members:
                      - user: alice
                        device: phone
                  - id: carpool
                    name: Carpool
                    members:
                      - user: alice
                        device: phone
                      - user: carol
                        device: car
                """, in: broker)
            // The watcher creates carol's accounts (and writes her password file) on its own.
            let carolPassword = try await passwords.waitFor(carol)
            try await DynamicSecurityBroker.eventually("carol can log in") {
                !(try await Tools.sub(broker, account: (carol, carolPassword), clientID: carol, clean: true, topic: "owntracks/carol/#", count: 0, wait: 1)
                    .output.contains("not authorised"))
            }
            // bob left: his accounts are gone.
            try await DynamicSecurityBroker.eventually("bob is refused") {
                try await Tools.sub(broker, account: ("whereabouts-bob-phone", try passwords("whereabouts-bob-phone")), clientID: "whereabouts-bob-phone",
                              clean: true, topic: "owntracks/bob/#", count: 0, wait: 1).output.contains("not authorised")
            }
        }
    }
}
