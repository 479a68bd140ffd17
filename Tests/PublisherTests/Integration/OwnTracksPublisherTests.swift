import Foundation
import Logging
import OwnTracksCrypto
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// The real whereabouts-pub binary through a real mosquitto, as Home Assistant's OwnTracks
/// integration and PyNaCl see it: every message it sends (locations, the `r` reply, presence, the
/// card, both wills), plain and encrypted.
@Suite("OwnTracks interop of the publisher", .serialized, .enabled(if: PublisherProcess.executable != nil))
struct OwnTracksPublisherTests {
    static let track = TestPaths.fixtures.appendingPathComponent("publisher/drive-240s.gpx").path
    /// The topic keeps --user Alice --device Phone as given (OwnTracksName).
    static let topic = "owntracks/Alice/Phone"
    static let secret = "Grüße, 42 secrets"
    /// The 8-byte PNG signature and filler: all `--card-face` checks of a picture.
    static let face = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 120))

    func arguments(broker: Broker, dir: URL, extra: [String]) -> [String] {
        ["--source", "gpx:\(Self.track)", "--replay-speed", "1", "--user", "Alice", "--device", "Phone", "--tid", "al",
         "--broker", "mqtt://\(broker.host):\(broker.port)", "--outbox", dir.appendingPathComponent("outbox.sqlite").path,
         "--log-level", "debug", "--power-supply-path", dir.appendingPathComponent("no-sysfs").path,
         "--card-name", "Alice", "--card-face", dir.appendingPathComponent("face.png").path]
            + extra
    }

    /// Runs the publisher until it sent presence, card and a location, sends `rejected` (if any) and
    /// waits for its rejection, asks for a `reportLocation` (the payload `command` makes of it) and
    /// waits for the reply `isReply` recognises, then kills it with SIGKILL so the broker sends
    /// both wills. Returns every message the publisher sent, as seen on `owntracks/#`.
    func run(
        extra: [String], rejected: Data? = nil, command: (Data) throws -> Data,
        isReply: @escaping @Sendable (MQTTMessage) -> Bool
    ) async throws -> (sent: [MQTTMessage], retainedCard: MQTTMessage) {
        let broker = try await Broker.start()
        let dir = try TestPaths.makeTemporaryDirectory(prefix: "pub-owntracks")
        try Self.face.write(to: dir.appendingPathComponent("face.png"))
        try Data("\(Self.secret)\n".utf8).write(to: dir.appendingPathComponent("secret"))
        let recorder = try await Recorder(broker: broker)
        let pub = try PublisherProcess(
            arguments: arguments(broker: broker, dir: dir, extra: extra.map { $0 == "SECRET" ? dir.appendingPathComponent("secret").path : $0 }),
            logFile: dir.appendingPathComponent("pub.log"))
        try await recorder.waitUntil("presence, card and a first location") { messages in
            Set(messages.map(\.topic)).isSuperset(of: [Self.topic, Self.topic + "/presence", Self.topic + "/info"])
        }
        try await pub.waitForLog("Connected.")
        let commander = MQTTClient(configuration: broker.clientConfiguration(clientID: "commander"), logger: .test("cmd"))
        try await commander.connect()
        if let rejected {
            try await commander.publish(to: Self.topic + "/cmd", payload: rejected)
            try await pub.waitForLog("Command rejected.")
        }
        try await commander.publish(to: Self.topic + "/cmd", payload: command(Data(#"{"_type":"cmd","action":"reportLocation"}"#.utf8)))
        try await recorder.waitUntil("the reply to reportLocation") { $0.contains(where: isReply) }
        await commander.disconnect()
        pub.signal(SIGKILL)
        _ = try await pub.waitForExit(timeout: .seconds(10))
        try await recorder.waitUntil("both wills") { messages in
            messages.contains { $0.topic == Self.topic && ($0.payloadString ?? "").hasPrefix(#"{"_type":"lwt""#) }
                && messages.contains { $0.topic == Self.topic + "/presence" && ($0.payloadString ?? "").contains(#""state":"offline""#) }
        }
        // What the publisher sent: the commands the test sent on <base>/cmd are left out.
        let messages = recorder.messages.filter { !$0.topic.hasSuffix("/cmd") }
        let card = try await retainedMessage(on: Self.topic + "/info", broker: broker)
        await recorder.stop()
        await broker.stop()
        try? FileManager.default.removeItem(at: dir)
        return (messages, card)
    }

    @Test("Plain: Home Assistant uses every location and logs nothing above debug for anything else")
    func plain() async throws {
        let (messages, retainedCard) = try await run(extra: [], command: { $0 }) { ($0.payloadString ?? "").contains(#""t":"r""#) }
        var kinds: Set<String> = []
        for message in messages {
            let verdict = HomeAssistantOwnTracks.verdict(topic: message.topic, payload: message.payload)
            #expect(verdict.isQuiet, "\(message.topic) \(message.payloadString ?? "?"): \(verdict)")
            let object = try #require(try JSONSerialization.jsonObject(with: message.payload) as? [String: Any])
            let type = object["_type"] as? String ?? "?"
            kinds.insert("\(message.topic.dropFirst(Self.topic.count)) \(type)\(object["state"].map { " \($0)" } ?? "")")
            if type == "location" { #expect(verdict == .locationUsed) }
        }
        #expect(kinds.isSuperset(of: [" location", " lwt", "/presence lwt online", "/presence lwt offline", "/info card"]), "\(kinds)")
        #expect(retainedCard.retained)
        let decoded = try JSONDecoder().decode(CardMessage.self, from: retainedCard.payload)
        #expect(decoded == CardMessage(name: "Alice", face: Self.face.base64EncodedString(), tid: "al"))
    }

    @Test("Encrypted: PyNaCl reads what the publisher sends; it obeys a command PyNaCl sealed; only the wills are plain")
    func encrypted() async throws {
        let command = Data(#"{"_type":"cmd","action":"reportLocation"}"#.utf8)
        let sealedWrongly = try PyNaCl.encrypt(command, secret: "not the secret")
        let (messages, retainedCard) = try await run(
            extra: ["--secret-file", "SECRET"],
            rejected: Data(#"{"_type":"encrypted","data":"\#(sealedWrongly)"}"#.utf8),
            command: { Data(#"{"_type":"encrypted","data":"\#(try PyNaCl.encrypt($0, secret: Self.secret))"}"#.utf8) }
        ) { message in
            guard let plain = try? EncryptedMessage.open(message.payload, with: OwnTracksKey(secret: Self.secret)) else { return false }
            return String(decoding: plain, as: UTF8.self).contains(#""t":"r""#)
        }
        var plainTypes: [String] = []
        var decrypted: [String: Int] = [:]
        for message in messages {
            let object = try #require(try JSONSerialization.jsonObject(with: message.payload) as? [String: Any])
            guard object["_type"] as? String == "encrypted" else {
                plainTypes.append("\(message.topic) \(message.payloadString ?? "?")")
                continue
            }
            #expect(object.count == 2, "only _type and data")
            let data = try #require(object["data"] as? String)
            let plaintext = try PyNaCl.decrypt(data, secret: Self.secret)
            let inner = try #require(try JSONSerialization.jsonObject(with: plaintext) as? [String: Any])
            decrypted[inner["_type"] as? String ?? "?", default: 0] += 1
            #expect(HomeAssistantOwnTracks.verdict(topic: message.topic, payload: message.payload, secret: Self.secret).isQuiet)
            #expect(!HomeAssistantOwnTracks.verdict(topic: message.topic, payload: message.payload, secret: "other").isQuiet,
                    "a wrong secret is noticed")
        }
        #expect(retainedCard.retained && EncryptedMessage.isEncrypted(retainedCard.payload))
        #expect(decrypted["location", default: 0] >= 2 && decrypted["card"] == 1 && decrypted["lwt", default: 0] >= 1, "\(decrypted)")
        // Plain: exactly the two wills (the main connection's lwt and the presence connection's offline).
        #expect(plainTypes.count == 2, "\(plainTypes)")
        #expect(plainTypes.contains { $0.hasPrefix(Self.topic + #" {"_type":"lwt","tst":"#) })
        #expect(plainTypes.contains { $0.hasPrefix(Self.topic + "/presence ") && $0.contains(#""state":"offline""#) })
    }
}
