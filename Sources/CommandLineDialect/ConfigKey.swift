import ArgumentParser

/// One key the config file accepts: the long flag name without `--`, and its value kind.
///
/// Each option group declares the keys of its own flags (`BrokerOptions.configKeys`,
/// `LoggingOptions.configKeys` ...), and a program's config file accepts the keys of the groups it
/// pulls in, so that a flag and its key are written down once, side by side.
package struct ConfigKey: Sendable, Hashable {
    /// The key, spelled like the long flag (`outbox-max`).
    package var name: String
    /// What values it takes.
    package var kind: ConfigValueKind

    /// Creates a key.
    package init(_ name: String, _ kind: ConfigValueKind) {
        self.name = name
        self.kind = kind
    }

    /// A key that takes one of the values of `type`, spelled as its flag takes them (its
    /// `allValueStrings`, which for a `CaseIterable` type come from `allCases`).
    package static func word<Value: ExpressibleByArgument & CaseIterable>(_ name: String, _ type: Value.Type) -> ConfigKey {
        ConfigKey(name, .word(Value.allValueStrings))
    }
}

/// The kind of value a config file key takes; the loader checks it and names the key and line
/// when a value does not fit.
package enum ConfigValueKind: Sendable, Hashable {
    /// Any string (a path, a URL, a name).
    case string
    /// A whole number.
    case integer
    /// A number, whole or not.
    case number
    /// `true` or `false` for a flag with both forms; becomes `--key` or `--no-key` on the
    /// command line.
    case boolean
    /// `true` or `false` for a flag that is off unless given and has no `--no-` form (such as
    /// `tls-insecure`); `true` becomes `--key`, `false` leaves it off.
    case flag
    /// A number or one of the given words (for example `replay-speed: max`).
    case numberOrWord([String])
    /// One of the given words.
    case word([String])
    /// A list of numbers, written as a YAML list or a comma-separated string.
    case numberList
}
