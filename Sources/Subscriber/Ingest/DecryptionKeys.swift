import Foundation
import OwnTracksCrypto

/// The members' OwnTracks secrets (from the circles file's `secretFile`s) and which members'
/// unreadable messages were already reported.
struct DecryptionKeys: Sendable {
    private var keys: [MemberID: OwnTracksKey]
    private var warned: Set<MemberID> = []

    /// Keys by member.
    init(_ keys: [MemberID: OwnTracksKey]) {
        self.keys = keys
    }

    /// Takes the keys of a reloaded circles file; members already warned stay warned.
    mutating func replace(with keys: [MemberID: OwnTracksKey]) {
        self.keys = keys
    }

    /// What became of an OwnTracks encrypted message.
    enum Outcome {
        /// The plaintext message, to be decoded like any other.
        case plaintext(Data)
        /// The circles file names no secret for the member: the message stays the ignored type
        /// `encrypted`.
        case noSecret
        /// A wrong secret, altered data or garbage: counted as the rejection `undecryptable`.
        case failed(OwnTracksCryptoError)
    }

    /// Opens an encrypted message (`{"_type":"encrypted","data":…}`) from `member`.
    func open(_ payload: some Collection<UInt8>, from member: MemberID) -> Outcome {
        guard let key = keys[member] else { return .noSecret }
        do {
            return .plaintext(try EncryptedMessage.open(Data(payload), with: key))
        } catch {
            return .failed(error)
        }
    }

    /// Whether a problem with `member`'s messages is to be logged: only the first time.
    mutating func shouldWarn(about member: MemberID) -> Bool {
        warned.insert(member).inserted
    }
}
