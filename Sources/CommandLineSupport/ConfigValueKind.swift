/// The kind of value a config file key takes; the loader checks it and names the key and line
/// when a value does not fit.
public enum ConfigValueKind: Sendable, Hashable {
    /// Any string (a path, a URL, a name).
    case string
    /// A whole number.
    case integer
    /// A number, whole or not.
    case number
    /// `true` or `false`; becomes `--key` or `--no-key` on the command line.
    case boolean
    /// A number or one of the given words (for example `replay-speed: max`).
    case numberOrWord([String])
    /// One of the given words.
    case word([String])
    /// A list of numbers, written as a YAML list or a comma-separated string.
    case numberList
}
