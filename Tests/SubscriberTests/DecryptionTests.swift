import Foundation
import Logging
import OwnTracksCrypto
import Synchronization
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport
@testable import Subscriber

/// OwnTracks encrypted messages into the subscriber: secrets named by the circles file, messages
/// sealed by PyNaCl (the library Home Assistant uses) shaped as the OwnTracks Android app sends them.
@Suite("Subscriber decryption")
struct DecryptionTests {
    /// A folder with a circles file whose members alice and bob name secret files (relative and
    /// absolute) and carol names none.
    struct Setup {
        let directory: URL
        let circlesPath: String

        init() throws {
            directory = try TestPaths.makeTemporaryDirectory(prefix: "sub-secrets")
            try Data("alice's secret\n".utf8).write(to: directory.appendingPathComponent("alice.secret"))
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("keys"), withIntermediateDirectories: true)
            let bob = directory.appendingPathComponent("keys/bob.secret")
            try Data("bob's secret".utf8).write(to: bob)
            circlesPath = directory.appendingPathComponent("circles.yaml").path
            try """
                circles:
                  - id: family
                    members:
                      - user: alice
                        device: phone
                        secretFile: alice.secret
                      - user: bob
                        device: phone
                        secretFile: \(bob.path)
                      - user: carol
                        device: phone
                """.write(toFile: circlesPath, atomically: true, encoding: .utf8)
        }
    }

    /// A location as the OwnTracks Android app sends it (its `MessageLocation` fields).
    static func appLocation(tst: Int, lat: Double) -> Data {
        Data("""
            {"_type":"location","acc":12,"alt":48,"batt":81,"bs":1,"conn":"w","created_at":\(tst + 1),"lat":\(lat),"lon":-8.6,"m":1,"t":"u","tid":"ap","topic":"owntracks/alice/phone","tst":\(tst),"vac":3,"vel":0}
            """.utf8)
    }

    static func sealed(by secret: String, _ plaintext: Data) throws -> Data {
        Data(#"{"_type":"encrypted","data":"\#(try PyNaCl.encrypt(plaintext, secret: secret))"}"#.utf8)
    }

    @Test("The circles file names secret files, never secrets; problems name the member")
    func circlesFileSecrets() throws {
        let setup = try Setup()
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        let file = try CirclesFile.load(path: setup.circlesPath)
        #expect(file.secrets[MemberID(user: "alice", device: "phone")] == (try OwnTracksKey(secret: "alice's secret")))
        #expect(file.secrets[MemberID(user: "bob", device: "phone")] == (try OwnTracksKey(secret: "bob's secret")))
        #expect(file.secrets[MemberID(user: "carol", device: "phone")] == nil)

        let inline = "circles:\n  - id: a\n    members:\n      - user: x\n        device: y\n        secret: hunter2\n"
        #expect { try CirclesFile.parse(yaml: inline) } throws: { error in
            "\(error)".contains("Unknown key `secret`") && !"\(error)".contains("hunter2")
        }
        try FileManager.default.removeItem(at: setup.directory.appendingPathComponent("alice.secret"))
        #expect { try CirclesFile.load(path: setup.circlesPath) } throws: { error in
            let text = "\(error)"
            return text.contains("alice/phone") && text.contains("circles[0].members[0].secretFile") && text.contains("alice.secret")
        }
    }

    @Test("Decrypted before decoding; a wrong secret or garbage is counted undecryptable and logged once per member")
    func ingest() async throws {
        let setup = try Setup()
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        let (logger, log) = Logger.capturing(label: "sub", level: .debug)
        var lines: [String] { log.entries.map { "\($0.level) \($0.message) \($0.metadata)" } }
        let store = CircleViewStore(circles: try CirclesFile.load(path: setup.circlesPath), logger: logger)
        let now = Date()
        let tst = Int(now.timeIntervalSince1970) - 30
        func send(_ user: String, _ payload: Data) async -> CircleViewStore.ApplyOutcome? {
            await store.ingest(MQTTMessage(topic: "owntracks/\(user)/phone", payload: payload, retained: false),
                               router: TopicRouter(), decoder: MessageDecoder(), at: now)
        }
        _ = await send("alice", try Self.sealed(by: "alice's secret", Self.appLocation(tst: tst, lat: 52.25)))
        let alice = try #require(await store.view(id: "family")?.member(user: "alice", device: "phone"))
        #expect(alice.fix?.tst == tst && alice.fix?.lat == 52.25)

        for payload in [
            try Self.sealed(by: "alice's secret", Self.appLocation(tst: tst + 5, lat: 1)),  // bob's topic, alice's secret
            Data(#"{"_type":"encrypted","data":"bm90IGEgYm94"}"#.utf8),
            Data(#"{"_type":"encrypted","data":"%%%"}"#.utf8),
        ] {
            _ = await send("bob", payload)
        }
        #expect(await store.statistics().rejected["undecryptable"] == 3)
        #expect(await store.view(id: "family")?.member(user: "bob", device: "phone")?.fix == nil)
        #expect(lines.filter { $0.contains("does not decrypt") }.count == 1, "\(lines)")
        #expect(lines.allSatisfy { !$0.contains("secret\"") && !$0.contains("52.25") }, "no secret or position in the log")

        // An encrypted plaintext that fails validation is rejected for what is wrong with it.
        _ = await send("alice", try Self.sealed(by: "alice's secret", Data(#"{"_type":"location","lat":91,"lon":1,"tst":\#(tst)}"#.utf8)))
        #expect(await store.statistics().rejected["out_of_range.lat"] == 1)

        // No secret named: ignored as the type `encrypted`, not rejected; one warning.
        _ = await send("carol", try Self.sealed(by: "x", Self.appLocation(tst: tst, lat: 3)))
        _ = await send("carol", try Self.sealed(by: "x", Self.appLocation(tst: tst + 1, lat: 3)))
        #expect(await store.statistics().rejected["undecryptable"] == 3)
        #expect(lines.filter { $0.contains("names no secretFile") }.count == 1)
    }

    @Test("An encrypted iOS location with a point-of-interest photo (over --max-payload sealed and in plain) keeps its fix")
    func encryptedPointOfInterest() async throws {
        let setup = try Setup()
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        let store = CircleViewStore(circles: try CirclesFile.load(path: setup.circlesPath), logger: Build.quietLogger)
        let now = Date()
        let tst = Int(now.timeIntervalSince1970) - 30
        let sealed = try Self.sealed(by: "alice's secret", Data(OwnTracksPayloads.iosPointOfInterest(tst: tst).utf8))
        #expect(sealed.count > 50_000)
        _ = await store.ingest(MQTTMessage(topic: "owntracks/alice/phone", payload: sealed, retained: true),
                               router: TopicRouter(), decoder: MessageDecoder(), at: now)
        let alice = try #require(await store.view(id: "family")?.member(user: "alice", device: "phone"))
        #expect(alice.fix?.tst == tst && alice.fix?.lat == 52.6641)
        #expect(await store.statistics().droppedFields == ["image": 1])
        #expect(await store.statistics().rejected.isEmpty)

        // A sealed plaintext whose non-photo part is over the limit is still refused, after decryption.
        let padded = #"{"_type":"location","lat":52.1,"lon":-8.6,"tst":\#(tst + 1),"tag":"\#(String(repeating: "x", count: 20_000))"}"#
        _ = await store.ingest(MQTTMessage(topic: "owntracks/alice/phone", payload: try Self.sealed(by: "alice's secret", Data(padded.utf8)), retained: false),
                               router: TopicRouter(), decoder: MessageDecoder(), at: now)
        #expect(await store.statistics().rejected == ["oversize": 1])
    }

    @Test("Through a real mosquitto: PyNaCl-sealed locations and Whereabouts-sealed presence reach the views")
    func throughBroker() async throws {
        let setup = try Setup()
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        let file = try CirclesFile.load(path: setup.circlesPath)
        let rig = try await Rig.start(file: file)
        let tst = Int(Date().timeIntervalSince1970) - 5
        try await rig.publisher.publish(
            to: "owntracks/alice/phone", payload: Self.sealed(by: "alice's secret", Self.appLocation(tst: tst, lat: 52.5)),
            qos: .atLeastOnce, retain: true)
        let presence = ReportEncoderShape.presence(online: true, since: tst - 60, tst: tst)
        try await rig.publisher.publish(
            to: "owntracks/bob/phone/presence",
            payload: EncryptedMessage.seal(presence, with: OwnTracksKey(secret: "bob's secret")), qos: .atLeastOnce, retain: true)
        let alice = try await rig.probe.member("family", "alice", "phone") { $0.fix?.tst == tst }
        #expect(alice.fix?.lat == 52.5)
        let bob = try await rig.probe.member("family", "bob", "phone") { $0.status == .online }
        #expect(bob.fix == nil)
        #expect(await rig.subscriber.store.statistics().rejected.total == 0)
        await rig.stop()
    }
}

/// The publisher's presence bytes (`{"_type":"lwt","state":…}`), as `whereabouts-pub` encodes them.
enum ReportEncoderShape {
    static func presence(online: Bool, since: Int, tst: Int) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(PresenceMessage(state: online ? .online : .offline, since: since, tst: tst))) ?? Data()
    }
}
