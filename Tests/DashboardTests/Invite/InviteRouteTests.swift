import Foundation
@testable import Provisioning
import Testing
import WhereaboutsTestSupport

/// The invite dialog's route (`POST`/`DELETE /api/circles/<id>/invites`) in the real
/// `whereabouts-sub`, with mosquitto reading the access control the invites write, zbarimg reading
/// the QR code back, and python3-paho-mqtt shaped as each OwnTracks app
/// (Tests/Fixtures/owntracks-app.py).
@Suite("Dashboard invites: the route, with the real subscriber, mosquitto and apps", .serialized)
struct InviteRouteTests {
    @Test("A circle admin invites three phones; the scanned configuration logs in and finds its friends in both its trees; revoke locks it out",
          .enabled(if: InviteRig.ready), .timeLimit(.minutes(3)))
    func inviteScanFriendsRevoke() async throws {
        let rig = try await InviteRig.start()
        var stopped = false
        defer { if !stopped { rig.subscriber.signal(SIGKILL) } }

        for (user, device, circle) in [("bob", "phone", "family"), ("carol", "laptop", "work")] {
            let answer = try await rig.invite(user, device, circle: circle, as: "ann")
            #expect(answer.status == 200, "\(answer.body)")
        }
        let reloadsBefore = rig.reloads()
        let made = try await rig.invite("alice", "phone", circle: "family", as: "ann")
        try #require(made.status == 200, "\(made.body)\n\(rig.logText())")
        let answer = try #require(made.object)
        #expect(answer["joined"] as? [String] == ["family"] && answer["circles"] as? [String] == ["family", "work"])
        #expect(answer["trees"] as? [String] == ["family", "work"] && answer["account"] as? String == "alice")
        #expect(answer["file"] as? String == "alice-phone.otrc")
        #expect(made.headers["cache-control"] == "no-store")

        // The QR code, read back by zbar, is the link; the link holds the .otrc.
        let png = rig.directory.appendingPathComponent("alice.png")
        try Data(base64Encoded: try #require(answer["png"] as? String))?.write(to: png)
        let scanned = try await ToolRun.run("/usr/bin/zbarimg", ["--raw", "-q", png.path])
        let link = scanned.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(scanned.status == 0 && link == answer["link"] as? String, "\(scanned.stderr)")
        let alice = try AppConfiguration(link: link)
        let otrc = try #require(answer["otrc"] as? String)
        #expect(try JSONDecoder().decode(AppConfiguration.self, from: Data(otrc.utf8)) == alice)
        #expect(alice.subTopic == "whereabouts-circles-family/# whereabouts-circles-work/#" && alice.sub)
        #expect(alice.username == "alice" && alice.pubTopicBase == "owntracks/alice/phone" && alice.port == rig.broker.port)
        #expect(try String(contentsOfFile: rig.circlesPath, encoding: .utf8).contains("# Circles of the invite dialog's tests."))

        // The invite reloaded mosquitto (SIGHUP) with the ACL and password files it wrote.
        try await waitUntil("mosquitto to reload after the invite") { rig.reloads() > reloadsBefore }
        let bobConfiguration = try #require(try await rig.invite("bob", "phone", circle: "family", as: "ann").object?["otrc"] as? String)
        let carolConfiguration = try #require(try await rig.invite("carol", "laptop", circle: "work", as: "ann").object?["otrc"] as? String)

        let family = "whereabouts-circles-family", work = "whereabouts-circles-work"
        let bob = try await rig.app(bobConfiguration, shape: "ios", ["--lat", "52.52", "--lon", "13.40", "--wait-for", "\(family)/bob/phone"])
        #expect(bob.status == 0, "\(bob.stdout)\(bob.stderr)\n\(rig.logText())")
        let carol = try await rig.app(carolConfiguration, shape: "android", ["--lat", "48.14", "--lon", "11.58", "--wait-for", "\(work)/carol/laptop"])
        #expect(carol.status == 0, "\(carol.stdout)\(carol.stderr)\n\(rig.logText())")

        // Alice's phone, as each app: one friend per member of each circle, herself in both trees.
        let expected: Set<String> = ["\(family)/bob/phone", "\(family)/alice/phone", "\(work)/carol/laptop", "\(work)/alice/phone"]
        for shape in ["android", "ios"] {
            let run = try await rig.app(otrc, shape: shape, ["--lat", "52.50", "--lon", "13.42"] + expected.sorted().flatMap { ["--wait-for", $0] })
            #expect(run.status == 0, "\(shape): \(run.stdout)\(run.stderr)\n\(rig.logText())")
            let topics = Self.topics(run)
            #expect(topics.allSatisfy { $0.hasPrefix(family + "/") || $0.hasPrefix(work + "/") }, "\(shape): only her trees: \(topics.sorted())")
            let friends = Set(topics.map { FriendKey.key($0, app: shape == "ios" ? .iOS(publishTopic: alice.pubTopicBase) : .android) })
            #expect(friends == expected, "\(shape): \(friends.sorted())")
        }

        // Revoke from the dialog's route: the account goes, the phone is refused, the file keeps its comment.
        let reloadsBeforeRevoke = rig.reloads()
        let revoked = try await rig.revoke("alice", "phone", circle: "family", as: "ann")
        #expect(revoked.status == 200 && (revoked.object?["done"] as? [String])?.isEmpty == false, "\(revoked.body)")
        try await waitUntil("mosquitto to reload after the revoke") { rig.reloads() > reloadsBeforeRevoke }
        let edited = try String(contentsOfFile: rig.circlesPath, encoding: .utf8)
        #expect(!edited.contains("alice") && edited.contains("# Circles of the invite dialog's tests."))
        let refused = try await rig.app(otrc, shape: "android", ["--timeout", "10"])
        #expect(refused.status == 3 && refused.stdout.contains("\"connack\": 5"), "\(refused.stdout)\(refused.stderr)")
        let again = try await rig.revoke("alice", "phone", circle: "family", as: "ann")
        #expect(again.status == 404 && again.error == "member_not_found", "\(again.body)")

        stopped = true
        await rig.stop()
    }

    @Test("Non-admins, admins of another circle, foreign origins, form posts and bad names are refused, and nothing changes",
          .enabled(if: InviteRig.ready), .timeLimit(.minutes(2)))
    func refusals() async throws {
        let rig = try await InviteRig.start()
        var stopped = false
        defer { if !stopped { rig.subscriber.signal(SIGKILL) } }
        let before = try String(contentsOfFile: rig.circlesPath, encoding: .utf8)
        let origin = "Origin: http://127.0.0.1:\(rig.port)"

        let nora = try await rig.invite("dave", "phone", circle: "family", as: "nora")
        #expect(nora.status == 403 && nora.error == "not_circle_admin", "\(nora.body)")
        // fred administers family only; alice is in work too, and an invite would hand out her password.
        let fred = try await rig.invite("alice", "phone", circle: "family", as: "fred")
        #expect(fred.status == 403 && fred.error == "member_in_other_circles", "\(fred.body)")
        let fredRevoke = try await rig.revoke("alice", "phone", circle: "work", as: "fred")
        #expect(fredRevoke.status == 403 && fredRevoke.error == "not_circle_admin", "\(fredRevoke.body)")
        let foreign = try await rig.invite("dave", "phone", circle: "family", as: "ann",
                                           headers: [InviteRig.basic("ann"), "Content-Type: application/json", "Origin: http://evil.example"])
        #expect(foreign.status == 403 && foreign.error == "forbidden_origin", "\(foreign.body)")
        // What a cross-site HTML form can send: refused before anything is read.
        let form = try await rig.invite("dave", "phone", circle: "family", as: "ann",
                                        headers: [InviteRig.basic("ann"), "Content-Type: text/plain", origin])
        #expect(form.status == 415 && form.error == "json_required", "\(form.body)")
        let anonymous = try await rig.invite("dave", "phone", circle: "family", as: "ann", headers: ["Content-Type: application/json", origin])
        #expect(anonymous.status == 401, "\(anonymous.body)")
        let badName = try await rig.invite("da ve", "phone", circle: "family", as: "ann")
        #expect(badName.status == 400 && badName.error == "bad_invite" && (badName.object?["message"] as? String)?.contains("topic level") == true, "\(badName.body)")
        let unknown = try await rig.invite("dave", "phone", circle: "nowhere", as: "ann")
        #expect(unknown.status == 403 && unknown.error == "not_circle_admin", "\(unknown.body)")
        #expect(try String(contentsOfFile: rig.circlesPath, encoding: .utf8) == before)

        let annCircles = try await rig.http.send("/api/invites", headers: [InviteRig.basic("ann")])
        #expect(annCircles.object?["circles"] as? [String] == ["family", "work"] && annCircles.object?["enabled"] as? Bool == true)
        let noraCircles = try await rig.http.send("/api/invites", headers: [InviteRig.basic("nora")])
        #expect(noraCircles.object?["circles"] as? [String] == [], "\(noraCircles.body)")

        stopped = true
        await rig.stop()
    }

    @Test("--invite-accounts without --users is refused at start")
    func needsLogins() async throws {
        let executable = try #require(InviteRig.executable)
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "invite-options")
        defer { try? FileManager.default.removeItem(at: directory) }
        let circles = directory.appendingPathComponent("circles.yaml")
        try InviteRig.circles.write(to: circles, atomically: true, encoding: .utf8)
        let run = try await ToolRun.run(executable.path, [
            "--circles", circles.path, "--http-port", "8080", "--invite-accounts", "nats", "--invite-password-dir", directory.path,
            "--invite-nats-accounts", directory.appendingPathComponent("users.conf").path,
        ])
        #expect(run.status != 0 && run.stderr.contains("--invite-accounts serves the dashboard's invite dialog"), "\(run.status) \(run.stderr)")
    }

    /// The topics of the non-empty messages an app run reported.
    static func topics(_ output: ToolRun.Output) -> Set<String> {
        var topics = Set<String>()
        for line in output.stdout.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let topic = object["topic"] as? String, (object["payload"] as? String)?.isEmpty == false else { continue }
            topics.insert(topic)
        }
        return topics
    }
}
