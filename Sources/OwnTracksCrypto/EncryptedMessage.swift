#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// OwnTracks' encrypted payload, `{"_type":"encrypted","data":"<base64 of nonce + ciphertext>"}`:
/// the whole plaintext message (its JSON bytes) sealed with libsodium's secretbox.
///
/// Sources of the format: the OwnTracks booklet ("Encryption"), Home Assistant's
/// `homeassistant/components/owntracks/messages.py` (`_decrypt_payload`, `encrypt_message`: PyNaCl
/// `SecretBox(key).encrypt(message, encoder=Base64Encoder)`, key = secret UTF-8 cut and
/// zero-padded to 32 bytes).
package enum EncryptedMessage {
    /// Seals a plaintext message (JSON bytes) into the bytes of an encrypted message.
    package static func seal(_ plaintext: Data, with key: OwnTracksKey) throws(OwnTracksCryptoError) -> Data {
        let box = try SecretBox.seal(Array(plaintext), key: key)
        // base64 has no characters JSON needs to escape.
        return Data(#"{"_type":"encrypted","data":""#.utf8) + Data(box).base64EncodedData() + Data(#""}"#.utf8)
    }

    /// The plaintext of an encrypted message.
    ///
    /// - Throws: ``OwnTracksCryptoError`` saying whether the envelope, the base64, the length or
    ///   the authentication (wrong secret, altered data) failed.
    package static func open(_ payload: Data, with key: OwnTracksKey) throws(OwnTracksCryptoError) -> Data {
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: payload),
              envelope.type == "encrypted", let data = envelope.data
        else { throw .notAnEncryptedMessage }
        guard let box = Data(base64Encoded: data) else { throw .notBase64 }
        return Data(try SecretBox.open(Array(box), key: key))
    }

    /// Whether `payload` looks like an encrypted message: a JSON object whose `_type` is
    /// `"encrypted"`. A cheap check for receivers deciding whether to decrypt.
    package static func isEncrypted(_ payload: Data) -> Bool {
        (try? JSONDecoder().decode(Envelope.self, from: payload))?.type == "encrypted"
    }

    /// The envelope's fields; one of another JSON type (or `null`) counts as absent, as it did
    /// when the payload was read with Foundation's `JSONSerialization` (not in FoundationEssentials).
    private struct Envelope: Decodable {
        var type: String?
        var data: String?

        private enum Key: String, CodingKey { case type = "_type", data }

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: Key.self)
            type = try? fields.decode(String.self, forKey: .type)
            data = try? fields.decode(String.self, forKey: .data)
        }
    }
}
