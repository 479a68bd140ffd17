import ArgumentParser
import WhereaboutsCore

/// `--profile active` or `--profile significant`.
extension MonitoringMode: ExpressibleByArgument {
    /// Parses `active` or `significant`.
    public init?(argument: String) {
        switch argument {
        case "active": self = .active
        case "significant": self = .significant
        default: return nil
        }
    }

    /// The flag value that names the mode.
    public var defaultValueDescription: String { self == .active ? "active" : "significant" }

    /// Both names, for `--help` and completion.
    public static var allValueStrings: [String] { ["active", "significant"] }
}
