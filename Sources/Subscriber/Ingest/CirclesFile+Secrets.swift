import Foundation
import OwnTracksCrypto

extension CirclesFile {
    /// Reads the secret of every member with a `secretFile` (a path relative to the circles file's
    /// folder, or absolute). The secret is never written in the circles file itself, so the file
    /// can be shared and versioned while the secrets stay readable only by the subscriber.
    ///
    /// - Throws: ``CirclesFileError`` naming the member when a secret file cannot be read or is
    ///   empty, or when one device names two different secret files in two circles.
    func readSecrets(relativeTo directory: URL) throws(CirclesFileError) -> [MemberID: OwnTracksKey] {
        var files: [MemberID: String] = [:]
        var keys: [MemberID: OwnTracksKey] = [:]
        for (circleIndex, circle) in circles.enumerated() {
            for (memberIndex, member) in circle.members.enumerated() {
                guard let path = member.secretFile else { continue }
                let key = "circles[\(circleIndex)].members[\(memberIndex)].secretFile"
                if let first = files[member.id] {
                    guard first == path else {
                        throw CirclesFileError(
                            "The device \(member.id) names the secret file `\(path)` here and `\(first)` in another circle; a device has one secret.",
                            key: key)
                    }
                    continue
                }
                let resolved = path.hasPrefix("/") ? path : directory.appendingPathComponent(path).path
                do {
                    keys[member.id] = try OwnTracksKey(contentsOfFile: resolved)
                } catch {
                    throw CirclesFileError("The secret of \(member.id) cannot be used: \(error.description)", key: key)
                }
                files[member.id] = path
            }
        }
        return keys
    }
}
