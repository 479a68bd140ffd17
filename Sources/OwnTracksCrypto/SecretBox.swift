import CSodium
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// libsodium's secretbox (XSalsa20-Poly1305) in OwnTracks' layout: a random 24-byte nonce followed
/// by the ciphertext with its 16-byte tag (the layout of PyNaCl's `SecretBox.encrypt`, which Home
/// Assistant uses, and of the OwnTracks apps).
enum SecretBox {
    static let nonceLength = Int(crypto_secretbox_noncebytes())
    static let tagLength = Int(crypto_secretbox_macbytes())

    /// `sodium_init` once per process; libsodium allows concurrent and repeated calls.
    private static let initialised: Bool = sodium_init() >= 0

    /// Seals `plaintext`: nonce, then ciphertext and tag.
    static func seal(_ plaintext: [UInt8], key: OwnTracksKey) throws(OwnTracksCryptoError) -> [UInt8] {
        guard initialised else { throw .sodiumUnavailable }
        var nonce = [UInt8](repeating: 0, count: nonceLength)
        randombytes_buf(&nonce, nonceLength)
        var sealed = [UInt8](repeating: 0, count: tagLength + plaintext.count)
        // crypto_secretbox_easy returns 0; it fails only for messages past SIZE_MAX.
        _ = crypto_secretbox_easy(&sealed, plaintext, UInt64(plaintext.count), nonce, key.bytes)
        return nonce + sealed
    }

    /// Opens a box made by ``seal(_:key:)`` or any OwnTracks peer.
    static func open(_ box: [UInt8], key: OwnTracksKey) throws(OwnTracksCryptoError) -> [UInt8] {
        guard initialised else { throw .sodiumUnavailable }
        guard box.count >= nonceLength + tagLength else { throw .tooShort(bytes: box.count) }
        var plaintext = [UInt8](repeating: 0, count: box.count - nonceLength - tagLength)
        let nonce = Array(box[..<nonceLength])
        let sealed = Array(box[nonceLength...])
        let status = crypto_secretbox_open_easy(&plaintext, sealed, UInt64(sealed.count), nonce, key.bytes)
        guard status == 0 else { throw .authenticationFailed }
        return plaintext
    }
}
