/// An acknowledgement libmosquitto reported for a message id.
enum Ack: Sendable {
    /// PUBACK / PUBCOMP (or, for QoS 0, the socket write), with the MQTT 5 reason code (0 on 3.1.1).
    case published(reasonCode: Int32)
    /// SUBACK with the granted QoS (or failure code >= 0x80) per filter.
    case subscribed(granted: [Int32])
    /// UNSUBACK.
    case unsubscribed
}
