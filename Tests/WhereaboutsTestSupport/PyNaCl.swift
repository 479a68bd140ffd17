import Foundation

/// Runs PyNaCl (Debian `python3-nacl`, the library Home Assistant's OwnTracks integration uses)
/// as the independent implementation for the interoperability tests.
public enum PyNaCl {
    /// PyNaCl failed or is missing.
    public struct Failure: Error, CustomStringConvertible {
        /// What PyNaCl printed.
        public var description: String
    }

    /// Debian's interpreter, which sees Debian's `python3-nacl` (a pyenv `python3` earlier on PATH may not).
    public static let python = "/usr/bin/python3"

    /// The key derivation of Home Assistant's `_decrypt_payload`: UTF-8, cut to 32, zero-padded.
    private static let prelude = """
        import sys, base64
        from nacl.secret import SecretBox
        from nacl.encoding import Base64Encoder
        key = sys.argv[1].encode("utf-8")[:SecretBox.KEY_SIZE].ljust(SecretBox.KEY_SIZE, b"\\0")
        box = SecretBox(key)
        """

    /// The base64 `data` PyNaCl makes of `plaintext` under `secret`.
    public static func encrypt(_ plaintext: Data, secret: String) throws -> String {
        let script = prelude + "\n" + """
            sys.stdout.write(box.encrypt(sys.stdin.buffer.read(), encoder=Base64Encoder).decode())
            """
        return String(decoding: try run(script, secret: secret, input: plaintext), as: UTF8.self)
    }

    /// The plaintext PyNaCl reads from base64 `data` under `secret`.
    public static func decrypt(_ data: String, secret: String) throws -> Data {
        let script = prelude + "\n" + """
            sys.stdout.buffer.write(box.decrypt(sys.stdin.buffer.read(), encoder=Base64Encoder))
            """
        return try run(script, secret: secret, input: Data(data.utf8))
    }

    private static func run(_ script: String, secret: String, input: Data) throws -> Data {
        let result = try ToolRun.runBlocking("/usr/bin/timeout", ["30", python, "-c", script, secret], input: input)
        guard result.status == 0 else {
            let text = result.stderr
            let hint = text.contains("No module named 'nacl'") ? " (install python3-nacl: scripts/install-deps)" : ""
            throw Failure(description: "PyNaCl exited \(result.status): \(text)\(hint)")
        }
        return result.stdoutData
    }
}
