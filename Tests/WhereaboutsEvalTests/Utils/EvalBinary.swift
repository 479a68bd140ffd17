import Foundation
import WhereaboutsTestSupport

/// Runs the built `whereabouts-eval` executable, found next to the test bundle (or in the
/// package's `.build/debug`), and locates fixtures and the shared traces.
enum EvalBinary {
    /// The package root, found from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Tests/Fixtures/eval/<name>`.
    static func fixture(_ name: String) -> URL {
        packageRoot.appendingPathComponent("Tests/Fixtures/eval").appendingPathComponent(name)
    }

    /// `<package root>/../shared/traces`.
    static let sharedTraces = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/traces")

    /// Whether the shared traces folder is present.
    static var hasSharedTraces: Bool {
        FileManager.default.fileExists(atPath: sharedTraces.appendingPathComponent("bus-limerick.gpx").path)
    }

    /// The executable, or `nil` when it has not been built.
    static var executable: URL? {
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("whereabouts-eval"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("whereabouts-eval"),
            packageRoot.appendingPathComponent(".build/debug/whereabouts-eval"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    enum Failure: Error, CustomStringConvertible {
        case notBuilt
        var description: String { "whereabouts-eval is not built; run swift build first." }
    }

    /// Runs the executable with `arguments` and waits for it to exit, off the cooperative pool
    /// (``ToolRun``).
    static func run(_ arguments: [String]) async throws -> Output {
        guard let executable else { throw Failure.notBuilt }
        let result = try await ToolRun.run(executable.path, arguments)
        return Output(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }

    /// A fresh temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("whereabouts-eval-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
