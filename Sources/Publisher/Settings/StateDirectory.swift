#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where the publisher keeps its outbox by default.
package enum StateDirectory {
    /// `$STATE_DIRECTORY` (set by systemd's `StateDirectory=`; the first entry when it lists several),
    /// else `$XDG_STATE_HOME/whereabouts`, else `~/.local/state/whereabouts`.
    package static func resolve(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let systemd = environment["STATE_DIRECTORY"]?.split(separator: ":").first, !systemd.isEmpty {
            return String(systemd)
        }
        if let xdg = environment["XDG_STATE_HOME"], !xdg.isEmpty {
            return (xdg as NSString).appendingPathComponent("whereabouts")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return (home as NSString).appendingPathComponent(".local/state/whereabouts")
    }

    /// The default outbox file for a user and device: `<state dir>/outbox-<user>-<device>.sqlite`.
    ///
    /// The file name is lower-cased, as it always was, so that an upgraded publisher finds its
    /// existing outbox; this is a local file name, never matched against a topic or an account
    /// (``OwnTracksName``: names in topics are used exactly as given).
    package static func defaultOutboxPath(user: String, device: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        (resolve(environment: environment) as NSString)
            .appendingPathComponent("outbox-\(user.lowercased())-\(device.lowercased()).sqlite")
    }
}
