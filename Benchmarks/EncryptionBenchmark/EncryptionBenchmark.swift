// What OwnTracks payload encryption costs the subscriber's ingest and the publisher.
//
// Baseline measured in the same run: the subscriber's MessageDecoder on the plain location
// message (what every plain message costs). Measured against it: opening the encrypted message
// (JSON envelope, base64, XSalsa20-Poly1305) and then decoding the plaintext, which is what an
// encrypted message costs; and sealing a message, what the publisher adds per publish.
//
// Run: swift run -c release EncryptionBenchmark [messages]
import ArgumentParser
import Foundation
import OwnTracksCrypto
import Subscriber

@main
struct EncryptionBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "EncryptionBenchmark",
        abstract: "Measures what OwnTracks payload encryption costs the subscriber's ingest and the publisher.",
        discussion: """
            Baseline, measured in the same run: the subscriber's MessageDecoder on a plain \
            212-byte OwnTracks location. Measured against it: opening the encrypted message \
            (JSON envelope, base64, XSalsa20-Poly1305) and decoding the plaintext, and sealing \
            a message (what the publisher adds per publish). Each is the best of 5 runs, \
            printed in nanoseconds per message, with the ratios to the baseline.
            """)

    @Argument(help: "The number of messages in each of the 5 runs of every measurement.")
    var messages = 100_000

    func validate() throws {
        guard messages > 0 else { throw ValidationError("The number of messages must be at least 1.") }
    }

    func run() throws {
        let count = messages
        let key = try OwnTracksKey(secret: "benchmark secret")
        let now = Date()
        let tst = Int(now.timeIntervalSince1970) - 60
        // An OwnTracks Android-shaped location, 212 bytes.
        let plain = Data(#"{"_type":"location","acc":12,"alt":48,"batt":81,"bs":1,"conn":"w","created_at":\#(tst + 1),"lat":52.663812,"lon":-8.626691,"m":1,"t":"u","tid":"ap","topic":"owntracks/alice/phone","tst":\#(tst),"vac":3,"vel":0}"#.utf8)
        let sealed = try EncryptedMessage.seal(plain, with: key)
        let decoder = MessageDecoder()

        func measure(_ name: String, _ body: () throws -> Void) rethrows -> Double {
            var best = Double.infinity
            for _ in 0..<5 {
                let start = ContinuousClock.now
                try body()
                let elapsed = ContinuousClock.now - start
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                best = min(best, seconds)
            }
            let perMessage = best / Double(count) * 1e9
            print(name.padding(toLength: 32, withPad: " ", startingAt: 0) + String(format: "%8.0f ns/message (best of 5 runs of %d)", perMessage, count))
            return perMessage
        }

        var sink = 0
        let baseline = try measure("decode plain (baseline)") {
            for _ in 0..<count { if case .location(let m, _) = try decoder.decode(plain, now: now) { sink &+= m.tst } }
        }
        let encrypted = try measure("open + decode encrypted") {
            for _ in 0..<count {
                let opened = try EncryptedMessage.open(sealed, with: key)
                if case .location(let m, _) = try decoder.decode(opened, now: now) { sink &+= m.tst }
            }
        }
        let seal = try measure("seal (publisher, per message)") {
            for _ in 0..<count { sink &+= try EncryptedMessage.seal(plain, with: key).count }
        }
        print(String(format: "encrypted ingest / plain ingest: %.1fx; seal / plain decode: %.1fx; payload %d -> %d bytes (checksum %d)",
                     encrypted / baseline, seal / baseline, plain.count, sealed.count, sink & 1))
    }
}
