#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OwnTracksCrypto

/// Encrypts what the publisher sends when a secret is set (`--secret-file`): every payload becomes
/// OwnTracks' `{"_type":"encrypted","data":…}`, readable by the OwnTracks apps, the Recorder and
/// Home Assistant with the same secret. Without a secret, payloads pass unchanged.
///
/// The wills (`lwt` on the base topic, `offline` presence) are not sealed: they are fixed when a
/// connection is made and go out long after; see docs/owntracks.md, "Encryption".
struct PayloadSealer: Sendable {
    private let key: OwnTracksKey?

    /// A sealer with `key`, or one that passes payloads through when `key` is `nil`.
    init(key: OwnTracksKey?) {
        self.key = key
    }

    /// Whether payloads are encrypted.
    var encrypts: Bool { key != nil }

    /// The payload to put on the wire for `plaintext`.
    ///
    /// - Throws: ``OwnTracksCryptoError/sodiumUnavailable`` when libsodium cannot run.
    func seal(_ plaintext: Data) throws(OwnTracksCryptoError) -> Data {
        guard let key else { return plaintext }
        return try EncryptedMessage.seal(plaintext, with: key)
    }
}
