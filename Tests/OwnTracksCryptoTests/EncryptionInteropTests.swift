import Foundation
import Testing
import WhereaboutsTestSupport
@testable import OwnTracksCrypto

/// Payload encryption against PyNaCl, in both directions, with the key derivation of the OwnTracks
/// apps and Home Assistant (secret UTF-8, cut to 32 bytes, zero-padded).
@Suite("OwnTracks encryption interop with PyNaCl")
struct EncryptionInteropTests {
    /// A short ASCII secret (zero-padded), a non-ASCII one, and one longer than 32 bytes (cut).
    static let secrets = ["s3cr3t", "Grüße aus Köln 🔑", String(repeating: "0123456789", count: 5)]

    static let location = Data(#"{"_type":"location","acc":5,"lat":52.1,"lon":-8.6,"t":"t","tid":"tr","tst":1795452224}"#.utf8)

    @Test("Whereabouts seals, PyNaCl opens", arguments: secrets)
    func swiftToPyNaCl(secret: String) throws {
        let key = try OwnTracksKey(secret: secret)
        let payload = try EncryptedMessage.seal(Self.location, with: key)
        let envelope = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
        #expect(envelope.count == 2)
        #expect(envelope["_type"] as? String == "encrypted")
        let data = try #require(envelope["data"] as? String)
        #expect(try PyNaCl.decrypt(data, secret: secret) == Self.location)
    }

    @Test("PyNaCl seals, Whereabouts opens", arguments: secrets)
    func pyNaClToSwift(secret: String) throws {
        let data = try PyNaCl.encrypt(Self.location, secret: secret)
        let payload = Data(#"{"_type":"encrypted","data":"\#(data)"}"#.utf8)
        #expect(try EncryptedMessage.open(payload, with: OwnTracksKey(secret: secret)) == Self.location)
    }

    @Test("A PyNaCl message under another secret fails authentication")
    func wrongSecret() throws {
        let data = try PyNaCl.encrypt(Self.location, secret: "right")
        let payload = Data(#"{"_type":"encrypted","data":"\#(data)"}"#.utf8)
        #expect(throws: OwnTracksCryptoError.authenticationFailed) {
            try EncryptedMessage.open(payload, with: OwnTracksKey(secret: "wrong"))
        }
    }
}
