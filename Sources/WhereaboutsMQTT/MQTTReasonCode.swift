/// A failure reason the broker gave in an acknowledgement: a PUBACK or PUBREC reason code
/// (MQTT 5 only) or a SUBACK return code (MQTT 5, and 0x80 "failure" in MQTT 3.1.1).
///
/// Every value is a code >= 0x80 (codes below are successes and never become one of these). The
/// named constants are those a broker sends for a publish or a subscription (MQTT 5.0
/// specification, 3.4.2.1 and 3.9.3); any other code is kept as it came, with libmosquitto's text.
public struct MQTTReasonCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code on the wire.
    public let rawValue: UInt8

    /// Wraps a code as the broker sent it.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x80: the broker gives no reason (and the only failure MQTT 3.1.1's SUBACK can carry).
    package static let unspecified = MQTTReasonCode(rawValue: 0x80)
    /// 0x83: the broker's own rule refused it.
    package static let implementationSpecific = MQTTReasonCode(rawValue: 0x83)
    /// 0x87: this user may not publish to the topic / subscribe to the filter (the broker's ACL).
    public static let notAuthorized = MQTTReasonCode(rawValue: 0x87)
    /// 0x8F: the filter is not one this broker accepts.
    package static let topicFilterInvalid = MQTTReasonCode(rawValue: 0x8F)
    /// 0x90: the topic is not one this broker accepts.
    package static let topicNameInvalid = MQTTReasonCode(rawValue: 0x90)
    /// 0x91: the packet id is in use (a client bug).
    package static let packetIdentifierInUse = MQTTReasonCode(rawValue: 0x91)
    /// 0x97: a quota of the broker (messages, bytes, subscriptions) is used up.
    package static let quotaExceeded = MQTTReasonCode(rawValue: 0x97)
    /// 0x99: the payload does not match its declared format (not UTF-8 when said to be).
    package static let payloadFormatInvalid = MQTTReasonCode(rawValue: 0x99)
    /// 0x9E: the broker does not do shared subscriptions.
    package static let sharedSubscriptionsNotSupported = MQTTReasonCode(rawValue: 0x9E)
    /// 0xA1: the broker does not do subscription identifiers.
    package static let subscriptionIdentifiersNotSupported = MQTTReasonCode(rawValue: 0xA1)
    /// 0xA2: the broker does not allow wildcard subscriptions.
    package static let wildcardSubscriptionsNotSupported = MQTTReasonCode(rawValue: 0xA2)

    /// A short name for logs and metric labels, in snake case: `not_authorized`,
    /// `quota_exceeded`, ...; `code_0x9a` for a code without a name here.
    public var name: String {
        switch self {
        case .unspecified: "unspecified"
        case .implementationSpecific: "implementation_specific"
        case .notAuthorized: "not_authorized"
        case .topicFilterInvalid: "topic_filter_invalid"
        case .topicNameInvalid: "topic_name_invalid"
        case .packetIdentifierInUse: "packet_identifier_in_use"
        case .quotaExceeded: "quota_exceeded"
        case .payloadFormatInvalid: "payload_format_invalid"
        case .sharedSubscriptionsNotSupported: "shared_subscriptions_not_supported"
        case .subscriptionIdentifiersNotSupported: "subscription_identifiers_not_supported"
        case .wildcardSubscriptionsNotSupported: "wildcard_subscriptions_not_supported"
        default: "code_0x" + String(rawValue, radix: 16)
        }
    }

    /// What the operator can do about it, as a sentence.
    public var advice: String {
        switch self {
        case .notAuthorized:
            "The broker's access control does not allow it: check the ACL file or dynamic security roles for this user (whereabouts-sub acl / dynsec write them from the circles file)."
        case .unspecified, .implementationSpecific:
            "The broker gave no precise reason; its log says why. Under MQTT 3.1.1 this is usually the ACL."
        case .quotaExceeded:
            "A broker quota is used up; raise it in the broker configuration or send less."
        case .topicNameInvalid, .topicFilterInvalid:
            "The broker does not accept this topic; check the user and device names for characters it refuses."
        case .payloadFormatInvalid:
            "The broker found the payload not in its declared format; this is a bug in the sender."
        case .wildcardSubscriptionsNotSupported, .sharedSubscriptionsNotSupported, .subscriptionIdentifiersNotSupported:
            "The broker does not support this kind of subscription; use another broker or plain filters."
        default:
            "See the broker's log for why it refused."
        }
    }

    /// The name and the code, e.g. `not authorized (0x87)`.
    public var description: String {
        let code = "0x" + String(rawValue, radix: 16)
        return name.hasPrefix("code_") ? "reason \(code)" : name.replacing("_", with: " ") + " (\(code))"
    }
}
