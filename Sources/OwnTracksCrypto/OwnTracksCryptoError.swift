/// Why a secret could not be loaded or a payload could not be encrypted or decrypted.
package enum OwnTracksCryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The secret (or the file that holds it) is empty.
    case emptySecret(source: String)
    /// The secret file cannot be read.
    case unreadableSecretFile(path: String, reason: String)
    /// libsodium could not be initialised (no entropy source).
    case sodiumUnavailable
    /// The payload is not a JSON object with `"_type":"encrypted"` and a string `data`.
    case notAnEncryptedMessage
    /// `data` is not valid base64.
    case notBase64
    /// The decoded `data` is shorter than a nonce and an authentication tag (40 bytes).
    case tooShort(bytes: Int)
    /// The authentication tag does not match: the wrong key, or the data was altered.
    case authenticationFailed

    /// A sentence naming what is wrong and what to do.
    package var description: String {
        switch self {
        case let .emptySecret(source):
            "The encryption secret from \(source) is empty; write the OwnTracks secret into the file."
        case let .unreadableSecretFile(path, reason):
            "The secret file \(path) cannot be read: \(reason)."
        case .sodiumUnavailable:
            "libsodium could not be initialised (sodium_init failed); the system has no usable random source."
        case .notAnEncryptedMessage:
            "The payload is not an OwnTracks encrypted message ({\"_type\":\"encrypted\",\"data\":\"…\"})."
        case .notBase64:
            "The encrypted message's data is not valid base64."
        case let .tooShort(bytes):
            "The encrypted message's data is \(bytes) bytes, shorter than a 24-byte nonce and a 16-byte tag."
        case .authenticationFailed:
            "The encrypted message cannot be decrypted with this secret: the wrong secret, or the data was altered."
        }
    }
}
