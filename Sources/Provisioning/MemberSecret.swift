import Foundation
import WhereaboutsCore
import SystemSupport

/// The OwnTracks encryption secret of a member's device, in the file the circles file names
/// (`secretFile`, relative to the circles file's folder): read as the subscriber reads it (the
/// whole content without one trailing line break, docs/owntracks.md "Encryption"), or generated.
enum MemberSecret {
    /// The file's absolute path.
    static func path(_ secretFile: String, circlesPath: String) -> String {
        secretFile.hasPrefix("/") ? secretFile
            : URL(fileURLWithPath: circlesPath).deletingLastPathComponent().appendingPathComponent(secretFile).path
    }

    /// The secret in `path`, or a new one written there (24 letters and digits, under the 32
    /// bytes the key keeps, mode 0600); `generated` says which.
    static func readOrCreate(at path: String) throws(ProvisioningError) -> (secret: String, generated: Bool) {
        if FileManager.default.fileExists(atPath: path) {
            guard var text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ProvisioningError("The secret file \(path) cannot be read as UTF-8 text.")
            }
            if text.hasSuffix("\r\n") { text.removeLast(2) } else if text.hasSuffix("\n") { text.removeLast() }
            guard !text.isEmpty else { throw ProvisioningError("The secret file \(path) is empty; delete it to have one generated.") }
            return (text, false)
        }
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        let secret = String((0..<24).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
        do {
            try AtomicFile.write(Data((secret + "\n").utf8), to: path, mode: 0o600)
        } catch {
            throw ProvisioningError("The secret file \(path) cannot be written: \(error.reason).")
        }
        return (secret, true)
    }
}
