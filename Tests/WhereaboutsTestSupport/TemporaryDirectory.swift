import Foundation

/// A fresh folder under the system temp dir, removed when the value is released (at the end of
/// the test that holds it).
public final class TemporaryDirectory {
    /// The folder.
    public let url: URL

    /// Creates the folder, named `<prefix>-<UUID>`.
    public init(prefix: String = "whereabouts-test") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the folder.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `text` to `name` (creating folders) and returns the path.
    @discardableResult
    public func write(_ text: String, to name: String) throws -> String {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
