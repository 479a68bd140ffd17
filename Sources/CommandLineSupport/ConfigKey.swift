/// One key the config file accepts: the long flag name without `--`, and its value kind.
public struct ConfigKey: Sendable, Hashable {
    /// The key, spelled like the long flag (`outbox-max`).
    public var name: String
    /// What values it takes.
    public var kind: ConfigValueKind

    /// Creates a key.
    public init(_ name: String, _ kind: ConfigValueKind) {
        self.name = name
        self.kind = kind
    }
}
