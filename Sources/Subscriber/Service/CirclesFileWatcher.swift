import Foundation
import Logging
import SystemSupport
import WhereaboutsMQTT

/// Reloads the circles file when it changes (its modification time, size or inode, polled) or
/// when the process receives SIGHUP, keeping the state of members that stay. The running
/// subscriber and `whereabouts-sub dynsec --watch` (Provisioning) both watch with it.
package struct CirclesFileWatcher {
    let path: String
    let pollInterval: Double
    /// The broker whose limits every version must respect (``CirclesFile/check(for:)``).
    let brokerKind: BrokerKind
    let logger: Logger

    /// Creates a watcher of the circles file at `path`, polled every `pollInterval` seconds.
    package init(path: String, pollInterval: Double, brokerKind: BrokerKind, logger: Logger) {
        self.path = path
        self.pollInterval = pollInterval
        self.brokerKind = brokerKind
        self.logger = logger
    }

    /// The stamp of the file at `path`, or `nil` when it cannot be read.
    package static func stamp(of path: String) -> FileStamp? { FileStamp(path: path) }

    /// Polls until cancelled, calling `reload` with each successfully parsed new version.
    /// A version that fails to parse is logged and the current circles stay in force.
    package func watch(reload: @Sendable (CirclesFile) async -> Void) async {
        var last = Self.stamp(of: path)
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(pollInterval))
            let current = Self.stamp(of: path)
            guard current != last, current != nil else { continue }
            last = current
            await load(reason: "changed", reload: reload)
        }
    }

    /// Loads the file and hands it to `reload`, logging a parse error instead.
    package func load(reason: String, reload: @Sendable (CirclesFile) async -> Void) async {
        do {
            let file = try CirclesFile.load(path: path)
            try file.check(for: brokerKind)
            logger.info("Reloading the circles file.", metadata: ["whereabouts.reason": "\(reason)", "whereabouts.file": "\(path)"])
            await reload(file)
        } catch {
            logger.error(
                "The circles file was not reloaded; the previous circles stay in force.",
                metadata: ["whereabouts.file": "\(path)", "whereabouts.error": "\(error)"])
        }
    }
}
