import Foundation
import OwnTracksCrypto

/// What Home Assistant's OwnTracks integration does with one MQTT message: its acceptance rules,
/// written down from its source so a test can hold every message the publisher sends against them.
///
/// Sources (home-assistant/core):
/// - `homeassistant/components/owntracks/__init__.py`: subscribes to `owntracks/#`;
///   `async_handle_mqtt_message` logs an error for a payload that is not JSON and sets
///   `message["topic"]` (a JSON value that is not an object raises there);
///   `OwnTracksContext.async_valid_accuracy`: `acc` missing or not a number drops a location
///   silently, `acc == 0` drops it with a warning.
/// - `homeassistant/components/owntracks/messages.py`: handlers for `location`, `transition`,
///   `waypoint`, `waypoints`, `encrypted`; `lwt`, `configuration`, `beacon`, `cmd`, `steps`, `card`
///   are logged at debug; any other `_type` gets the warning `Received unsupported message type`;
///   `encrypted` is decrypted with the secret (UTF-8, cut and zero-padded to 32 bytes) and handled
///   as its content, with a warning when there is no secret or it does not decrypt; `_parse_topic`
///   needs a user and a device level after the subscription's `#`.
enum HomeAssistantOwnTracks {
    /// The outcome for one message.
    enum Verdict: Equatable, CustomStringConvertible {
        /// A location that updates the device tracker.
        case locationUsed
        /// A transition or waypoint, handled.
        case handled(String)
        /// A known type logged at debug level only.
        case quietlyIgnored(String)
        /// A location dropped without a log line (`acc` missing or not a number).
        case silentlyDropped(String)
        /// Logged at warning level.
        case warning(String)
        /// Logged at error level, or raised.
        case error(String)

        var description: String {
            switch self {
            case .locationUsed: "location used"
            case let .handled(type): "handled \(type)"
            case let .quietlyIgnored(type): "debug: not handling \(type)"
            case let .silentlyDropped(reason): "silently dropped: \(reason)"
            case let .warning(text): "WARNING \(text)"
            case let .error(text): "ERROR \(text)"
            }
        }

        /// Whether Home Assistant logs nothing above debug for it.
        var isQuiet: Bool {
            switch self {
            case .warning, .error: false
            default: true
            }
        }
    }

    static let handledTypes: Set = ["location", "transition", "waypoint", "waypoints", "encrypted"]
    static let debugTypes: Set = ["lwt", "configuration", "beacon", "cmd", "steps", "card"]

    /// The verdict for `payload` on `topic` under the default subscription `owntracks/#`, with
    /// Home Assistant configured with `secret` (or none).
    static func verdict(topic: String, payload: Data, secret: String? = nil) -> Verdict {
        guard topic.hasPrefix("owntracks/") else { return .quietlyIgnored("not subscribed") }
        guard let any = try? JSONSerialization.jsonObject(with: payload, options: [.fragmentsAllowed]) else {
            return .error("Unable to parse payload as JSON")
        }
        guard let message = any as? [String: Any] else { return .error("TypeError setting message['topic']") }
        let type = message["_type"] as? String
        switch type {
        case "location":
            guard let acc = message["acc"] else { return .silentlyDropped("acc missing") }
            let value: Double? = (acc as? NSNumber)?.doubleValue ?? (acc as? String).flatMap(Double.init)
            guard let value else { return .silentlyDropped("acc not a number") }
            if value == 0 { return .warning("Ignoring location update because GPS accuracy is zero") }
            guard message["lat"] != nil, message["lon"] != nil else { return .error("KeyError lat/lon") }
            let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
            guard levels.count >= 3 else { return .error("Can't parse topic") }
            return .locationUsed
        case "transition", "waypoint", "waypoints":
            return .handled(type!)
        case "encrypted":
            guard let secret else {
                return .warning("Ignoring encrypted payload because no decryption key known for topic \(topic)")
            }
            guard let key = try? OwnTracksKey(secret: secret),
                  let plaintext = try? EncryptedMessage.open(payload, with: key)
            else { return .warning("Ignoring encrypted payload because unable to decrypt using key for topic \(topic)") }
            return verdict(topic: topic, payload: plaintext, secret: secret)
        case let type? where debugTypes.contains(type):
            return .quietlyIgnored(type)
        default:
            return .warning("Received unsupported message type: \(type ?? "None")")
        }
    }
}
