#if canImport(Glibc)
import Glibc
#endif
/// Why an `MQTTClient` is disconnected and not trying to reconnect.
public enum MQTTDisconnectReason: Sendable, Equatable, CustomStringConvertible {
    /// `connect()` or `start()` has not been called yet.
    case notStarted
    /// `disconnect()` was called.
    case requested
    /// The client was released while connected.
    case released
    /// The connection failed and the client does not retry (the first `connect()` failed, or
    /// reconnecting is disabled in the configuration).
    case failed(MQTTError)

    /// A short human-readable reason.
    public var description: String {
        switch self {
        case .notStarted: "not started"
        case .requested: "disconnect requested"
        case .released: "client released"
        case .failed(let error): error.description
        }
    }
}
