#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// Where the publisher keeps its outbox and the subscriber its status file by default.
package enum StateDirectory {
    /// `$STATE_DIRECTORY` (set by systemd's `StateDirectory=`; the first entry when it lists several),
    /// else `$XDG_STATE_HOME/whereabouts`, else `~/.local/state/whereabouts`.
    package static func resolve(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let systemd = environment["STATE_DIRECTORY"]?.split(separator: ":").first, !systemd.isEmpty {
            return String(systemd)
        }
        if let xdg = environment["XDG_STATE_HOME"], !xdg.isEmpty {
            return PathText.appending("whereabouts", to: xdg)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path
        return PathText.appending(".local/state/whereabouts", to: home)
    }

    /// `name` made safe as one file name in the state directory: `%` and `/` are written as
    /// `%25` and `%2F` (a client id may contain `/`, which would otherwise name a subfolder or,
    /// with `..`, a file outside the directory), and a leading `.` as `%2E` (no hidden file).
    package static func fileName(_ name: String) -> String {
        var safe = ""
        for character in name {
            switch character {
            case "%": safe += "%25"
            case "/": safe += "%2F"
            case "." where safe.isEmpty: safe += "%2E"
            default: safe.append(character)
            }
        }
        return safe
    }

    /// The default outbox file for a user and device: `<state dir>/outbox-<user>-<device>.sqlite`.
    ///
    /// The file name is lower-cased, as it always was, so that an upgraded publisher finds its
    /// existing outbox; this is a local file name, never matched against a topic or an account
    /// (``OwnTracksName``: names in topics are used exactly as given).
    package static func defaultOutboxPath(user: String, device: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        PathText.appending("outbox-\(user.lowercased())-\(device.lowercased()).sqlite", to: resolve(environment: environment))
    }
}
