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
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: payload) as? [String: Any] else {
                throw CommandMessageError.notAnObject
            }
            object = parsed
        } catch let error as CommandMessageError {
            if payload.count > Self.maxPayloadSize { throw .tooLarge(bytes: payload.count) }
            throw error
        } catch {
            if payload.count > Self.maxPayloadSize { throw .tooLarge(bytes: payload.count) }
            throw .notJSON
        }
        // Only a waypoint list may be larger than an ordinary command.
        if payload.count > Self.maxPayloadSize, object["action"] as? String != "setWaypoints" {
            throw .tooLarge(bytes: payload.count)
        }
        guard object["_type"] as? String == "cmd" else { throw .notACommand }
        guard let action = object["action"] as? String else { throw .missingAction }
        switch action {
        case "reportLocation":
            self = .reportLocation
        case "setConfiguration":
            guard object["configuration"] is [String: Any] else { throw .missingMonitoring }
            // JSONSerialization bridges `true` to a number that `as? Int` reads as 1, so the
            // value's type is checked by a strict decoder: only a JSON integer is a mode.
            guard let monitoring = (try? JSONDecoder().decode(ConfigurationEnvelope.self, from: payload))?.configuration.monitoring
            else { throw .missingMonitoring }
            guard let mode = MonitoringMode(rawValue: monitoring) else {
                throw .unsupportedMonitoring(monitoring)
            }
            self = .setProfile(mode)
        case "setProfile":
            guard let name = object["profile"] as? String else { throw .unknownProfile("") }
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
    /// The part of a `setConfiguration` command that names the mode, decoded strictly (`true`, `1.5`
    /// or `"1"` fail to decode as an integer).
    private struct ConfigurationEnvelope: Decodable {
        struct Configuration: Decodable { var monitoring: Int }
        var configuration: Configuration
    }
}
