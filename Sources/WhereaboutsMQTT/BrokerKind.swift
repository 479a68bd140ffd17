/// Which broker software is at the other end, for the limits the publisher and the subscriber
/// must respect before they connect (`--broker-kind`).
///
/// NATS' MQTT listener (NATS 2.9 documentation, and measured here; docs/cluster.md) speaks MQTT
/// 3.1.1 with QoS 0 and 1 only (QoS 2 closes the connection); a topic with `.` or a space closes
/// the connection (`.` separates NATS subject tokens); a QoS 1 message whose topic holds `@` is
/// dropped without a word; `*` and `>` are NATS wildcards.
public enum BrokerKind: String, Sendable, Hashable, CaseIterable {
    /// mosquitto, or any broker with the whole of MQTT 5 and 3.1.1 (the default).
    case mosquitto
    /// A NATS server's MQTT listener (one node or a JetStream cluster).
    case nats

    /// The MQTT version spoken to the broker: MQTT 5 with mosquitto, whose acknowledgements
    /// then say why a publish or a subscription was refused (an MQTT 3.1.1 PUBACK cannot: a
    /// publish the ACL denies looks delivered); MQTT 3.1.1 with NATS, which speaks nothing else.
    public var protocolVersion: MQTTConfiguration.ProtocolVersion { self == .nats ? .v311 : .v5 }

    /// The highest QoS the broker carries.
    public var maximumQoS: QoS { self == .nats ? .atLeastOnce : .exactlyOnce }

    /// Why `level` cannot be carried as a topic level (a user or device name) by this broker, or
    /// `nil` when it can.
    public func problem(withTopicLevel level: String) -> String? {
        guard self == .nats else { return nil }
        if level.contains(".") { return "NATS separates subject tokens with '.', and closes the connection of a client that uses one in a topic" }
        if level.contains(where: \.isWhitespace) { return "NATS closes the connection of a client that uses a space in a topic" }
        if level.contains("@") { return "NATS drops QoS 1 messages whose topic holds '@' without a word" }
        if level.contains("*") || level.contains(">") { return "'*' and '>' are NATS wildcards" }
        return nil
    }
}
