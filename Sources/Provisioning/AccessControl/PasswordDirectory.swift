import Foundation

/// A folder of broker account passwords, one file per account named after it (first line: the
/// password), shared by the generators that must put passwords into the broker's configuration:
/// mosquitto's dynamic security plugin and NATS' accounts file.
struct PasswordDirectory: Sendable {
    /// The folder.
    let path: String

    /// The password of account `name`: the first line of `<path>/<name>`, or, when there is no such
    /// file, a new random one (24 letters and digits, no look-alikes) written there with mode 0600
    /// for the operator to hand to the device; `generated` says which.
    func password(for name: String) throws(AccessControlError) -> (password: String, generated: Bool) {
        let url = URL(fileURLWithPath: path).appendingPathComponent(name)
        if let text = try? String(contentsOf: url, encoding: .utf8) {
            let line = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
            guard !line.isEmpty else { throw AccessControlError("The password file \(url.path) is empty; delete it to have one generated.") }
            return (line, false)
        }
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        let password = String((0..<24).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
        guard FileManager.default.createFile(atPath: url.path, contents: Data((password + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
            throw AccessControlError("The password file \(url.path) cannot be written; check that \(path) exists and is writable.")
        }
        return (password, true)
    }
}
