#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A command received on `<base>/cmd`, parsed and checked.
///
/// Accepted forms (OwnTracks' and one simpler form):
/// - `{"_type":"cmd","action":"reportLocation"}`
/// - `{"_type":"cmd","action":"setConfiguration","configuration":{"monitoring":1|2}}`
///   (1 significant, 2 active; other configuration keys are ignored)
/// - `{"_type":"cmd","action":"setProfile","profile":"active"|"significant"}`
/// - `{"_type":"cmd","action":"setWaypoints","waypoints":{"_type":"waypoints","waypoints":[…]}}`
///   (``WaypointBatch`` lists the accepted shapes), `{"_type":"cmd","action":"clearWaypoints"}` and
///   `{"_type":"cmd","action":"waypoints"}`, as the OwnTracks apps take them
///   (owntracks/android `CommandAction.kt`; owntracks/ios `OwnTracksAppDelegate.m`)
public enum CommandMessage: Sendable, Hashable {
    /// Publish the current fix now, with trigger `r` (as the OwnTracks apps answer it).
    case reportLocation
    /// Switch to the given reporting profile.
    case setProfile(MonitoringMode)
    /// Add or replace these waypoints (the device's places).
    case setWaypoints(WaypointBatch)
    /// Remove every waypoint set by command.
    case clearWaypoints
    /// Publish the device's waypoints on `<base>/waypoints`.
    case listWaypoints

    /// The largest command payload accepted, in bytes, but for `setWaypoints`.
    static let maxPayloadSize = 4096
    /// The largest `setWaypoints` payload accepted, in bytes (100 waypoints of about 150 bytes fit).
    public static let maxWaypointsPayloadSize = 64 * 1024

    /// Parses a command payload.
    ///
    /// - Throws: ``CommandMessageError`` naming what is wrong; a rejected command changes nothing.
    public init(payload: Data) throws(CommandMessageError) {
        guard payload.count <= Self.maxWaypointsPayloadSize else { throw .tooLarge(bytes: payload.count) }
        let object: CommandFields
        do {
            object = try JSONDecoder().decode(CommandFields.self, from: payload)
        } catch {
            if payload.count > Self.maxPayloadSize { throw .tooLarge(bytes: payload.count) }
            throw CommandFields.isArray(payload, failure: error) ? .notAnObject : .notJSON
        }
        // Only a waypoint list may be larger than an ordinary command.
        if payload.count > Self.maxPayloadSize, object.action != "setWaypoints" {
            throw .tooLarge(bytes: payload.count)
        }
        guard object.type == "cmd" else { throw .notACommand }
        guard let action = object.action else { throw .missingAction }
        switch action {
        case "reportLocation":
            self = .reportLocation
        case "setConfiguration":
            guard object.hasConfiguration else { throw .missingMonitoring }
            // The value's type is checked by a strict decoder: only a JSON integer is a mode.
            guard let monitoring = (try? JSONDecoder().decode(ConfigurationEnvelope.self, from: payload))?.configuration.monitoring
            else { throw .missingMonitoring }
            guard let mode = MonitoringMode(rawValue: monitoring) else {
                throw .unsupportedMonitoring(monitoring)
            }
            self = .setProfile(mode)
        case "setProfile":
            guard let name = object.profile else { throw .unknownProfile("") }
            guard let mode = MonitoringMode(name: name) else { throw .unknownProfile(name) }
            self = .setProfile(mode)
        case "setWaypoints":
            self = .setWaypoints(try WaypointBatch(payload: payload))
        case "clearWaypoints":
            self = .clearWaypoints
        case "waypoints":
            self = .listWaypoints
        default:
            throw .unknownAction(action)
        }
    }
}

extension CommandMessage {
    /// The fields that say what a command is. A field of another JSON type (or `null`) counts as
    /// absent, as it did when the payload was read with Foundation's `JSONSerialization`, which
    /// FoundationEssentials does not have.
    private struct CommandFields: Decodable {
        var type: String?
        var action: String?
        var profile: String?
        /// Whether `configuration` is a JSON object.
        var hasConfiguration: Bool

        private enum Key: String, CodingKey { case type = "_type", action, profile, configuration }

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: Key.self)
            type = try? fields.decode(String.self, forKey: .type)
            action = try? fields.decode(String.self, forKey: .action)
            profile = try? fields.decode(String.self, forKey: .profile)
            hasConfiguration = (try? fields.nestedContainer(keyedBy: Key.self, forKey: .configuration)) != nil
        }

        /// Whether a payload that did not decode as an object is a JSON array (not an object)
        /// rather than not JSON: invalid JSON, or a bare value, which `JSONSerialization` refused.
        static func isArray(_ payload: Data, failure: any Error) -> Bool {
            guard case DecodingError.typeMismatch = failure else { return false }
            return payload.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "[")
        }
    }

    /// The part of a `setConfiguration` command that names the mode, decoded strictly (`true`, `1.5`
    /// or `"1"` fail to decode as an integer).
    private struct ConfigurationEnvelope: Decodable {
        struct Configuration: Decodable { var monitoring: Int }
        var configuration: Configuration
    }
}
