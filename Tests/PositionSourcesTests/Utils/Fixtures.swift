import Foundation
import Logging

/// Where the tests find their data: the repository's own fixtures and, when present, the shared
/// recorded traces next to the package.
enum Fixtures {
    /// The package root, found from this file's path (Tests/PositionSourcesTests/Utils/Fixtures.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A file under `Tests/Fixtures/`.
    static func url(_ relativePath: String) -> URL {
        packageRoot.appendingPathComponent("Tests/Fixtures").appendingPathComponent(relativePath)
    }

    /// `<package root>/../shared/traces`.
    static let sharedTraces = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/traces")

    /// A file in the shared traces folder.
    static func trace(_ name: String) -> URL { sharedTraces.appendingPathComponent(name) }

    /// Whether the shared traces folder is there (tests on it are skipped otherwise).
    static var hasSharedTraces: Bool {
        FileManager.default.fileExists(atPath: sharedTraces.appendingPathComponent("sailboat-zeus.nmea").path)
    }

    /// A logger that drops everything, for tests that do not look at logs; with the environment
    /// variable `WHEREABOUTS_TEST_LOG=1` it logs everything to stderr instead, for debugging.
    static let quietLogger: Logger = {
        guard ProcessInfo.processInfo.environment["WHEREABOUTS_TEST_LOG"] != nil else {
            return Logger(label: "whereabouts.tests", factory: { _ in SwiftLogNoOpLogHandler() })
        }
        var logger = Logger(label: "whereabouts.tests", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .trace
        return logger
    }()
}
