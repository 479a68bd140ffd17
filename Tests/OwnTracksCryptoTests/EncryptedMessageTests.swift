import Foundation
import Testing
@testable import OwnTracksCrypto

@Suite("Encrypted message envelope and key")
struct EncryptedMessageTests {
    let key = try! OwnTracksKey(secret: "correct horse")
    let plaintext = Data(#"{"_type":"card","name":"Dave"}"#.utf8)

    @Test("Key: UTF-8, zero-padded to 32, cut past 32")
    func keyDerivation() throws {
        #expect(try OwnTracksKey(secret: "ab").bytes == [97, 98] + Array(repeating: 0, count: 30))
        let long = try OwnTracksKey(secret: String(repeating: "x", count: 40))
        #expect(long.bytes == Array(repeating: 120, count: 32))
        #expect(long.isTruncated && long.secretLength == 40)
        #expect(throws: OwnTracksCryptoError.emptySecret(source: "the given secret")) { try OwnTracksKey(secret: "") }
        #expect(!"\(key)".contains("horse"), "the description never shows the secret")
    }

    @Test("Secret file: one trailing line break dropped, empty and missing files named")
    func secretFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("otcrypto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, content) in [("lf", "correct horse\n"), ("crlf", "correct horse\r\n"), ("bare", "correct horse")] {
            let file = dir.appendingPathComponent(name)
            try Data(content.utf8).write(to: file)
            #expect(try OwnTracksKey(contentsOfFile: file.path) == key, "\(name)")
        }
        let empty = dir.appendingPathComponent("empty")
        try Data("\n".utf8).write(to: empty)
        #expect(throws: OwnTracksCryptoError.emptySecret(source: empty.path)) { try OwnTracksKey(contentsOfFile: empty.path) }
        let missing = dir.appendingPathComponent("missing").path
        #expect {
            try OwnTracksKey(contentsOfFile: missing)
        } throws: { error in
            guard case .unreadableSecretFile(let path, _) = error as? OwnTracksCryptoError else { return false }
            return path == missing
        }
    }

    @Test("Round trip; a fresh nonce for every message")
    func roundTrip() throws {
        let first = try EncryptedMessage.seal(plaintext, with: key)
        let second = try EncryptedMessage.seal(plaintext, with: key)
        #expect(first != second)
        #expect(EncryptedMessage.isEncrypted(first))
        #expect(!EncryptedMessage.isEncrypted(plaintext))
        #expect(try EncryptedMessage.open(first, with: key) == plaintext)
        #expect(try EncryptedMessage.open(second, with: key) == plaintext)
    }

    @Test("Hostile envelopes: each fails with its own error")
    func hostile() throws {
        let sealed = try EncryptedMessage.seal(plaintext, with: key)
        let object = try #require(try JSONSerialization.jsonObject(with: sealed) as? [String: String])
        let data = try #require(object["data"])
        var box = try #require(Data(base64Encoded: data))
        box[box.count - 1] ^= 0x01
        let tampered = Data(#"{"_type":"encrypted","data":"\#(box.base64EncodedString())"}"#.utf8)
        let cases: [(String, OwnTracksCryptoError)] = [
            (String(decoding: tampered, as: UTF8.self), .authenticationFailed),
            (#"{"_type":"encrypted","data":"!!not base64!!"}"#, .notBase64),
            (#"{"_type":"encrypted","data":"AAAA"}"#, .tooShort(bytes: 3)),
            (#"{"_type":"encrypted","data":""}"#, .tooShort(bytes: 0)),
            (#"{"_type":"encrypted","data":42}"#, .notAnEncryptedMessage),
            (#"{"_type":"location","data":"AAAA"}"#, .notAnEncryptedMessage),
            (#"["_type","encrypted"]"#, .notAnEncryptedMessage),
            ("", .notAnEncryptedMessage),
        ]
        for (payload, expected) in cases {
            #expect(throws: expected, "\(payload)") { try EncryptedMessage.open(Data(payload.utf8), with: key) }
        }
    }
}
