import Foundation
@testable import Provisioning
import Testing
import WhereaboutsTestSupport

/// The invite dialog with the members' accounts in mosquitto's dynamic security plugin (the
/// shipped broker/mosquitto-dynsec.conf): the dashboard connects as the plugin's admin for each
/// invite, with the real subscriber, the real plugin and python3-paho-mqtt shaped as the apps.
@Suite("Dashboard invites with mosquitto's dynamic security plugin")
struct InviteDynsecRouteTests {
    @Test("An admin invites a phone: the plugin gets its account, the scanned configuration logs in and sees itself in the tree; revoke locks it out",
          .enabled(if: InviteRig.ready && DynsecBroker.pluginPath != nil), .timeLimit(.minutes(3)))
    func inviteAndRevoke() async throws {
        let rig = try await InviteRig.start(dynamicSecurity: true)
        var stopped = false
        defer { if !stopped { rig.subscriber.signal(SIGKILL) } }

        let made = try await rig.invite("alice", "phone", circle: "family", as: "ann")
        try #require(made.status == 200, "\(made.body)\n\(rig.logText())")
        let answer = try #require(made.object)
        let alice = try AppConfiguration(link: try #require(answer["link"] as? String))
        // The plugin's account: one per device, bound to its client id.
        #expect(alice.username == "whereabouts-alice-phone" && alice.clientId == "whereabouts-alice-phone", "\(alice)")
        #expect(alice.subTopic == "whereabouts-circles-family/# whereabouts-circles-work/#")
        let otrc = try #require(answer["otrc"] as? String)

        let family = "whereabouts-circles-family"
        let run = try await rig.app(otrc, shape: "ios", ["--lat", "52.50", "--lon", "13.42", "--wait-for", "\(family)/alice/phone"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)\n\(rig.logText())")

        // The subscriber kept its own session: the admin connection has a client id of its own.
        #expect(rig.subscriber.isRunning)
        #expect(!rig.logText().contains("Disconnected"), "\(rig.logText())")

        let revoked = try await rig.revoke("alice", "phone", circle: "family", as: "ann")
        #expect(revoked.status == 200, "\(revoked.body)\n\(rig.logText())")
        let refused = try await rig.app(otrc, shape: "android", ["--timeout", "10"])
        #expect(refused.status == 3 && refused.stdout.contains("\"connack\": 5"), "\(refused.stdout)\(refused.stderr)")
        #expect(!(try String(contentsOfFile: rig.circlesPath, encoding: .utf8)).contains("alice"))

        await rig.stop()
        stopped = true
    }
}
