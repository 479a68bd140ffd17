/// Why an incoming MQTT message was rejected. Every rejection is counted by ``code`` and logged.
package enum MessageRejectionReason: Error, Sendable, Hashable, CustomStringConvertible {
    /// The payload is larger than the configured limit.
    case oversize(bytes: Int, limit: Int)
    /// The payload is not a JSON object (garbage, truncated, NaN literals, not UTF-8).
    case malformedJSON
    /// The JSON object has no `_type` string.
    case missingType
    /// A required key is absent.
    case missingField(String)
    /// A key holds a value of the wrong JSON type.
    case wrongType(String)
    /// A key holds a value outside its allowed range (NaN, infinity, `lat` 91, `tst` 0...).
    case outOfRange(String)
    /// The fix's `tst` lies further in the future than the clock-skew tolerance.
    case futureTimestamp(tst: Int)
    /// The location claims a horizontal accuracy worse than ``ViewSettings/maxAccuracy``.
    case poorAccuracy(metres: Int, limit: Int)
    /// Reaching the location from the member's live fix needs more than
    /// ``ViewSettings/maxImpliedSpeed``.
    case impliedSpeed(metresPerSecond: Double, limit: Double)
    /// The topic is not one of a tracked member's topics.
    case unknownTopic
    /// An encrypted message that does not decrypt with the member's secret (wrong secret, altered
    /// data, garbage).
    case undecryptable
    /// A message type arrived on a topic where OwnTracks does not use it: a `location` or `lwt`
    /// on a sub-topic (only the base topic sets the live position), a `card` outside `<base>/info`.
    case wrongTopic(type: String, subtopic: String?)

    /// A short stable code for counters and logs, such as `out_of_range.lat`.
    package var code: String {
        switch self {
        case .oversize: "oversize"
        case .malformedJSON: "malformed_json"
        case .missingType: "missing_type"
        case .missingField(let key): "missing_field.\(key)"
        case .wrongType(let key): "wrong_type.\(key)"
        case .outOfRange(let key): "out_of_range.\(key)"
        case .futureTimestamp: "future_timestamp"
        case .poorAccuracy: "poor_accuracy"
        case .impliedSpeed: "implied_speed"
        case .unknownTopic: "unknown_topic"
        case .undecryptable: "undecryptable"
        case .wrongTopic(let type, _): "wrong_topic.\(type)"
        }
    }

    /// A sentence saying what was wrong.
    package var description: String {
        switch self {
        case let .oversize(bytes, limit): "The payload has \(bytes) bytes, more than the limit of \(limit)."
        case .malformedJSON: "The payload is not a JSON object."
        case .missingType: "The JSON object has no `_type` string."
        case .missingField(let key): "The required key `\(key)` is missing."
        case .wrongType(let key): "The key `\(key)` has the wrong type."
        case .outOfRange(let key): "The value of `\(key)` is out of range."
        case .futureTimestamp(let tst): "The timestamp \(tst) lies in the future."
        case let .poorAccuracy(metres, limit): "The claimed accuracy of \(metres) m is worse than the limit of \(limit) m."
        case let .impliedSpeed(speed, limit):
            "Reaching it from the live fix needs \(Int(speed.rounded())) m/s, more than the limit of \(Int(limit.rounded())) m/s."
        case .unknownTopic: "The topic belongs to no member of this subscriber's circles."
        case .undecryptable: "The encrypted message does not decrypt with the member's secret."
        case let .wrongTopic(type, subtopic):
            "A `\(type)` message is not used on \(subtopic.map { "the sub-topic `\($0)`" } ?? "the base topic"); OwnTracks sends it on \(type == "card" ? "`<base>/info`" : "the base topic")."
        }
    }
}
