#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemSupport

/// A secretbox key derived from an OwnTracks "secret encryption key" the way the apps, the Recorder
/// and Home Assistant derive it: the secret's UTF-8 bytes, cut to 32 bytes and zero-padded to 32.
///
/// The secret is never printed: `description` names only its length.
package struct OwnTracksKey: Sendable, Hashable, CustomStringConvertible {
    /// The 32 key bytes.
    let bytes: [UInt8]
    /// How many UTF-8 bytes the secret had (before cutting to 32).
    package let secretLength: Int

    /// The key length of libsodium's secretbox, 32 bytes.
    static let keyLength = 32

    /// Derives the key of `secret`.
    ///
    /// - Throws: ``OwnTracksCryptoError/emptySecret(source:)`` for an empty secret.
    package init(secret: String) throws(OwnTracksCryptoError) {
        let utf8 = Array(secret.utf8)
        guard !utf8.isEmpty else { throw .emptySecret(source: "the given secret") }
        secretLength = utf8.count
        bytes = Array(utf8.prefix(Self.keyLength)) + Array(repeating: 0, count: max(0, Self.keyLength - utf8.count))
    }

    /// Reads the secret from the file at `path`: its whole content, without one trailing line
    /// break (`\n` or `\r\n`, as `echo` and editors leave it).
    ///
    /// - Throws: ``OwnTracksCryptoError/unreadableSecretFile(path:reason:)`` when the file cannot be
    ///   read or is not UTF-8, ``OwnTracksCryptoError/emptySecret(source:)`` when it holds no secret.
    package init(contentsOfFile path: String) throws(OwnTracksCryptoError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadableSecretFile(path: path, reason: fileErrorReason(error))
        }
        guard var text = String(data: data, encoding: .utf8) else {
            throw .unreadableSecretFile(path: path, reason: "it is not UTF-8 text")
        }
        if text.hasSuffix("\r\n") {
            text.removeLast(1)  // "\r\n" is one Character
        } else if text.hasSuffix("\n") {
            text.removeLast()
        }
        guard !text.isEmpty else { throw .emptySecret(source: path) }
        try self.init(secret: text)
    }

    /// Whether the secret was longer than 32 bytes, so only its first 32 bytes count (as in the
    /// OwnTracks apps and Home Assistant).
    package var isTruncated: Bool { secretLength > Self.keyLength }

    /// Names the key's length only, never its bytes.
    package var description: String { "OwnTracksKey(\(secretLength) secret bytes)" }
}
