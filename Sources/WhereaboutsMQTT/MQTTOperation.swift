/// The operation an `MQTTError.timedOut` is about.
public enum MQTTOperation: String, Sendable, Equatable {
    /// Connecting (waiting for CONNACK).
    case connect
    /// Publishing (waiting for PUBACK / PUBCOMP / the socket write).
    case publish
    /// Subscribing (waiting for SUBACK).
    case subscribe
    /// Unsubscribing (waiting for UNSUBACK).
    case unsubscribe
    /// Disconnecting.
    case disconnect
}
