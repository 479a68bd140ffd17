import ArgumentParser
import Logging
import WhereaboutsCore

/// `--log-level trace|debug|info|notice|warning|error|critical`, checked by ArgumentParser.
extension Logger.Level: @retroactive ExpressibleByArgument {}

/// `--profile active` or `--profile significant` (``MonitoringMode/name``).
extension MonitoringMode: ExpressibleByArgument {
    /// Parses a profile's name.
    public init?(argument: String) {
        self.init(name: argument)
    }

    /// The flag value that names the mode.
    public var defaultValueDescription: String { name }

    /// Every profile's name, from `allCases`, for `--help`, completion and the config file's
    /// `profile` key (not the raw values ArgumentParser would list for an `Int` enum).
    public static var allValueStrings: [String] { allCases.map(\.name) }

    /// What each profile does, by name, for the list under the flag in `--help` (ArgumentParser
    /// would key it by raw value, `2`, and print no text beside the names).
    public static var allValueDescriptions: [String: String] {
        [
            MonitoringMode.active.name: "the configured policy",
            MonitoringMode.significant.name: "at least 500 m and 5 min between reports",
        ]
    }
}
