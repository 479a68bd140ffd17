/// Why a broker refused a connection (MQTT 3.1.1 CONNACK return codes and MQTT 5 reason codes).
public enum MQTTRefusal: Sendable, Equatable, CustomStringConvertible {
    /// Wrong user name or password: 3.1.1 code 4 or MQTT 5 0x86, or "not authorised" (5 / 0x87)
    /// to a CONNECT that carried credentials, which is how mosquitto 2.0 reports a wrong password.
    case badCredentials
    /// Not allowed to connect without credentials, e.g. anonymous access disabled (3.1.1 code 5,
    /// MQTT 5 0x87, with no credentials sent).
    case notAuthorized
    /// The broker rejected the client id (3.1.1 code 2, 5: 0x85).
    case identifierRejected
    /// The broker does not speak the requested protocol version (3.1.1 code 1, 5: 0x84).
    case unsupportedProtocolVersion
    /// The broker is unavailable or busy (3.1.1 code 3, 5: 0x88/0x89).
    case serverUnavailable
    /// This client is banned (MQTT 5 0x8A).
    case banned
    /// Any other refusal, with the broker's code and libmosquitto's text for it.
    case other(code: Int, reason: String)

    /// The refusal as a sentence fragment with a hint.
    public var description: String {
        switch self {
        case .badCredentials: "bad user name or password; check the credentials"
        case .notAuthorized: "not authorised; check that this user (or anonymous access) is allowed"
        case .identifierRejected: "client identifier rejected; choose another client id"
        case .unsupportedProtocolVersion: "unsupported protocol version; try MQTT 3.1.1"
        case .serverUnavailable: "server unavailable; try again later"
        case .banned: "this client is banned"
        case .other(let code, let reason): "code \(code) (\(reason))"
        }
    }
}
