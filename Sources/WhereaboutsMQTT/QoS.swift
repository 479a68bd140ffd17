/// The MQTT quality of service of a publish or a subscription: how hard the protocol tries to
/// deliver a message, and which acknowledgement `publish` waits for.
public enum QoS: Int, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    /// QoS 0: sent once, never acknowledged. `publish` returns once the message is written.
    case atMostOnce = 0
    /// QoS 1: resent until the broker acknowledges it (PUBACK); may arrive more than once.
    case atLeastOnce = 1
    /// QoS 2: a four-step handshake that delivers exactly once; `publish` waits for PUBCOMP.
    case exactlyOnce = 2

    /// Orders QoS levels by strength (`atMostOnce` < `atLeastOnce` < `exactlyOnce`).
    public static func < (lhs: QoS, rhs: QoS) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `QoS 0`, `QoS 1` or `QoS 2`.
    public var description: String { "QoS \(rawValue)" }
}
