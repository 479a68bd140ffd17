import Foundation
import Logging
import WhereaboutsTestSupport

/// Where the tests find their data: the repository's own fixtures and, when present, the shared
/// recorded traces next to the package (both located by ``TestPaths``).
enum Fixtures {
    /// A file under `Tests/Fixtures/`.
    static func url(_ relativePath: String) -> URL {
        TestPaths.fixtures.appendingPathComponent(relativePath)
    }

    /// A file in the shared traces folder (a path that does not exist when the folder is missing).
    static func trace(_ name: String) -> URL {
        (TestPaths.sharedTraces ?? URL(fileURLWithPath: "/nonexistent/shared/traces")).appendingPathComponent(name)
    }

    /// Whether the shared traces folder is there (tests on it are skipped otherwise).
    static var hasSharedTraces: Bool {
        FileManager.default.fileExists(atPath: trace("sailboat-zeus.nmea").path)
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
