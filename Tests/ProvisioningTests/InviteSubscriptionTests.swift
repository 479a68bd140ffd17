import Foundation
@testable import Provisioning
import Testing
import WhereaboutsTestSupport

/// A member of two circles subscribes to two trees: the `subTopic` an invite writes, split as each
/// app splits it, and the tree's friend topics keyed as each app keys them.
///
/// - iOS: `OwnTracksAppDelegate.m`, `connectForcingCleanSession:`, splits `subTopic` with
///   `componentsSeparatedByCharactersInSet:` and the whitespace set, which keeps an empty piece
///   between two separators (and at either end); `OwnTracking.m`, `processMessage`, keys a friend
///   by the first N levels of the topic, N the levels of the app's own publish topic.
/// - Android: `MqttConnectionConfiguration.kt` splits `subTopic` at each `" "` into a sorted set;
///   `MessageBase.contactKey` keys a friend by the whole topic, a card's without `/info`.
@Suite("Invites: several circles, several trees, as both apps read them")
struct InviteSubscriptionTests {
    static let circles = """
        circles:
          - id: family
            name: Family
            owntracks: true
            members:
              - user: alice
                device: phone
              - user: bob
                device: phone
          - id: work
            name: Work
            owntracks: true
            members:
              - user: alice
                device: phone
              - user: carol
                device: laptop
          - id: club
            name: Club
            members:
              - user: alice
                device: phone

        """

    /// iOS's split: at every space or tab, empty pieces kept.
    static func iOSFilters(_ subTopic: String) -> [String] {
        subTopic.split(omittingEmptySubsequences: false, whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    }

    /// Android's split: at every space, as a sorted set.
    static func androidFilters(_ subTopic: String) -> [String] {
        Set(subTopic.split(separator: " ", omittingEmptySubsequences: false).map(String.init)).sorted()
    }

    /// An invite whose accounts go to a NATS accounts file (no broker needed to write it).
    static func inviter(in directory: URL, prefixes: TopicPrefixes = TopicPrefixes()) throws -> Inviter {
        let circles = directory.appendingPathComponent("circles.yaml")
        try Self.circles.write(to: circles, atomically: true, encoding: .utf8)
        let passwords = directory.appendingPathComponent("passwords")
        try FileManager.default.createDirectory(at: passwords, withIntermediateDirectories: true)
        return Inviter(
            settings: .init(circlesPath: circles.path, host: "broker.example.org", port: 8883, tls: true, prefixes: prefixes),
            accounts: .store(.nats(.init(path: directory.appendingPathComponent("users.conf").path, passwordDirectory: passwords.path))))
    }

    @Test("Both apps subscribe to exactly the member's two trees, and file every member of each under one friend")
    func twoTrees() async throws {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "invite-trees")
        defer { try? FileManager.default.removeItem(at: directory) }
        let invitation = try await Self.inviter(in: directory).invite(user: "alice", device: "phone")
        let configuration = invitation.configuration
        let trees = ["whereabouts-circles-family/#", "whereabouts-circles-work/#"]
        #expect(invitation.trees == ["family", "work"] && invitation.circles == ["family", "work", "club"])
        #expect(Self.iOSFilters(configuration.subTopic) == trees, "no empty filter for iOS: \(Self.iOSFilters(configuration.subTopic))")
        #expect(Self.androidFilters(configuration.subTopic) == trees)
        for filter in trees {
            // A valid MQTT filter: not empty, `#` only as the whole last level.
            let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
            #expect(!filter.isEmpty && levels.dropLast().allSatisfy { !$0.contains("#") && !$0.contains("+") && !$0.isEmpty } && levels.last == "#")
        }
        // Rebuilt from the link, as the apps import it.
        #expect(try AppConfiguration(link: configuration.link).subTopic == configuration.subTopic)

        // The trees' topics (location, card, transition) of every member, keyed by each app.
        let iOSLevels = configuration.pubTopicBase.split(separator: "/", omittingEmptySubsequences: false).count
        #expect(iOSLevels == 3)
        let members = ["whereabouts-circles-family/alice/phone", "whereabouts-circles-family/bob/phone",
                       "whereabouts-circles-work/alice/phone", "whereabouts-circles-work/carol/laptop"]
        for member in members {
            for topic in [member, member + "/info", member + "/event"] {
                let iOS = topic.split(separator: "/", omittingEmptySubsequences: false).prefix(iOSLevels).joined(separator: "/")
                #expect(iOS == member, "iOS files \(topic) under \(iOS)")
                if !topic.hasSuffix("/event") {
                    let android = topic.hasSuffix("/info") ? String(topic.dropLast(5)) : topic
                    #expect(android == member, "Android files \(topic) under \(android)")
                }
            }
        }
    }

    @Test("A topic prefix of two levels is refused before anything is written: iOS would split each friend")
    func deepPublishTopicRefused() async throws {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "invite-deep")
        defer { try? FileManager.default.removeItem(at: directory) }
        let inviter = try Self.inviter(in: directory, prefixes: TopicPrefixes(topicPrefix: "home/owntracks"))
        await #expect {
            try await inviter.invite(user: "dave", device: "phone", joining: ["family"])
        } throws: { error in
            "\(error)".contains("more than three levels") && "\(error)".contains("--topic-prefix")
        }
        #expect(try !String(contentsOf: directory.appendingPathComponent("circles.yaml"), encoding: .utf8).contains("dave"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("users.conf").path))
    }
}
