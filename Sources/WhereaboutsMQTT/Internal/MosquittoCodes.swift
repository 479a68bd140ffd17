import CMosquitto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// libmosquitto result codes as `Int32`, and their translation into `MQTTError`.
enum MosquittoCode {
    static let success = MOSQ_ERR_SUCCESS.rawValue
    static let noConnection = MOSQ_ERR_NO_CONN.rawValue
    static let connectionLost = MOSQ_ERR_CONN_LOST.rawValue
    static let connectionRefused = MOSQ_ERR_CONN_REFUSED.rawValue
    static let tls = MOSQ_ERR_TLS.rawValue
    static let errno = MOSQ_ERR_ERRNO.rawValue
    static let lookup = MOSQ_ERR_EAI.rawValue
    static let invalid = MOSQ_ERR_INVAL.rawValue
    static let payloadSize = MOSQ_ERR_PAYLOAD_SIZE.rawValue
    static let malformedUTF8 = MOSQ_ERR_MALFORMED_UTF8.rawValue
    static let oversizePacket = MOSQ_ERR_OVERSIZE_PACKET.rawValue
    static let qosNotSupported = MOSQ_ERR_QOS_NOT_SUPPORTED.rawValue

    /// libmosquitto's text for a result code.
    static func text(_ rc: Int32) -> String { String(cString: mosquitto_strerror(rc)) }

    /// The error for a failed `mosquitto_connect*` call; `savedErrno` is `errno` right after it.
    static func connectError(
        _ rc: Int32, savedErrno: Int32, configuration: MQTTConfiguration, libraryError: String?
    ) -> MQTTError {
        let host = configuration.host, port = configuration.port
        switch rc {
        case lookup:
            return .dnsFailure(host: host, detail: String(cString: gai_strerror(savedErrno)))
        case errno:
            return .connectionFailed(host: host, port: port, detail: String(cString: strerror(savedErrno)))
        case tls:
            return .tlsFailure(detail: libraryError ?? text(rc))
        case invalid:
            return .invalidArgument("libmosquitto rejected the connection parameters (\(libraryError ?? text(rc)))")
        default:
            return .library(code: rc, detail: libraryError ?? text(rc))
        }
    }

    /// The error for a connection that ended before the broker accepted it (no CONNACK).
    static func failedBeforeConnack(
        _ rc: Int32, savedErrno: Int32, configuration: MQTTConfiguration, libraryError: String?
    ) -> MQTTError {
        if configuration.tls != nil,
            rc == tls || savedErrno == EPROTO
                || (libraryError.map { $0.contains("SSL") || $0.contains("certificate") } ?? false)
        {
            return .tlsFailure(detail: libraryError ?? text(rc))
        }
        let detail = rc == errno ? String(cString: strerror(savedErrno)) : text(rc)
        return .connectionFailed(
            host: configuration.host, port: configuration.port,
            detail: "the broker closed the connection before accepting it: \(libraryError ?? detail)")
    }

    /// The refusal for a non-zero CONNACK code (3.1.1 return code or MQTT 5 reason code).
    /// mosquitto 2.0 answers a wrong password with "not authorised" (5 / 0x87), so that answer
    /// to a CONNECT that carried credentials means the credentials were not accepted.
    static func refusal(_ code: Int32, sentCredentials: Bool) -> MQTTRefusal {
        switch code {
        case 5 where sentCredentials, 0x87 where sentCredentials: .badCredentials
        case 1, 0x84: .unsupportedProtocolVersion
        case 2, 0x85: .identifierRejected
        case 3, 0x88, 0x89: .serverUnavailable
        case 4, 0x86: .badCredentials
        case 5, 0x87: .notAuthorized
        case 0x8A: .banned
        default:
            .other(
                code: Int(code),
                reason: code < 0x80 ? String(cString: mosquitto_connack_string(code)) : String(cString: mosquitto_reason_string(code)))
        }
    }

    /// The error for a failed publish / subscribe / unsubscribe call.
    static func operationError(_ rc: Int32, topic: String, queued: Bool) -> MQTTError {
        switch rc {
        case noConnection, connectionLost: .notConnected(mayStillBeDelivered: queued)
        case invalid: .invalidArgument("'\(topic)' is not a valid topic or filter here")
        case malformedUTF8: .invalidArgument("'\(topic)' is not valid UTF-8")
        case payloadSize: .invalidArgument("the payload is larger than MQTT allows (256 MiB)")
        case oversizePacket: .invalidArgument("the message is larger than the broker's maximum packet size")
        case qosNotSupported: .invalidArgument("the broker does not support this QoS")
        default: .library(code: rc, detail: text(rc))
        }
    }

    /// libmosquitto's text for an MQTT 5 reason code.
    static func reason(_ code: Int32) -> String { String(cString: mosquitto_reason_string(code)) }
}
