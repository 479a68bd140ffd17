import Foundation
import Logging
import OwnTracksCrypto

extension CircleViewStore {
    /// What became of an OwnTracks encrypted message.
    enum Decryption {
        /// The plaintext message, to be decoded like any other.
        case plaintext(Data)
        /// The circles file names no secret for the member: the message stays the ignored type
        /// `encrypted`.
        case noSecret
        /// A wrong secret, altered data or garbage: counted as the rejection `undecryptable`.
        case failed
    }

    /// Decrypts an OwnTracks encrypted message (`{"_type":"encrypted","data":…}`) from `member`
    /// with the secret the circles file names for it. A missing secret and a failure are each
    /// logged once per member, at warning, never with the secret or the payload.
    func decrypt(_ payload: some Collection<UInt8>, from member: MemberID) -> Decryption {
        guard let key = secrets[member] else {
            warnOnce(member, "Encrypted messages from this device are ignored: the circles file names no secretFile for it.",
                     reason: "encrypted")
            return .noSecret
        }
        do {
            return .plaintext(try EncryptedMessage.open(Data(payload), with: key))
        } catch {
            stats.rejected[MessageRejectionReason.undecryptable.code, default: 0] += 1
            metrics.ingest(outcome: "rejected", reason: MessageRejectionReason.undecryptable.code)
            warnOnce(member, "Rejected an encrypted message that does not decrypt with this device's secret.",
                     reason: "\(MessageRejectionReason.undecryptable.code): \(error.description)")
            return .failed
        }
    }

    private func warnOnce(_ member: MemberID, _ message: Logger.Message, reason: String) {
        guard decryptionWarned.insert(member).inserted else { return }
        logger.warning(message, metadata: [
            "whereabouts.member": "\(member)", "whereabouts.reason": "\(reason)",
            "whereabouts.note": "logged once per device until the subscriber restarts; counted every time",
        ])
    }
}
