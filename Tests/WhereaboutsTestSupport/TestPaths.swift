import Foundation

/// Paths tests need: the package root, the shared recorded traces, and throwaway directories.
public enum TestPaths {
    /// The package root (the folder holding `Package.swift`), found from this file's location.
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        // .../<root>/Tests/WhereaboutsTestSupport/TestPaths.swift
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    /// `<package root>/../shared/traces` when that folder exists, else `nil`. Tests that need it
    /// use `.enabled(if: TestPaths.sharedTraces != nil)` so they skip cleanly without it.
    public static let sharedTraces: URL? = {
        let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/traces")
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue ? url : nil
    }()

    /// `<package root>/Tests/Fixtures`, the small fixtures the repository carries.
    public static var fixtures: URL { packageRoot.appendingPathComponent("Tests/Fixtures") }

    /// Creates a fresh, empty, uniquely named directory under the system temporary directory.
    /// The caller removes it (or leaves it for the OS to clean up).
    public static func makeTemporaryDirectory(prefix: String = "whereabouts-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The path of an executable product built alongside the tests (e.g. a test helper), or
    /// `nil` if it has not been built.
    public static func builtExecutable(named name: String) -> URL? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        // The test binary may sit inside `X.xctest/` (or `.../Contents/MacOS/`): walk up a few levels.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return nil
    }
}
