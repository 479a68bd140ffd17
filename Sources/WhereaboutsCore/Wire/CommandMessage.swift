import Foundation

/// A command received on `<base>/cmd`, parsed and checked.
///
/// Accepted forms (OwnTracks' and one simpler form):
/// - `{"_type":"cmd","action":"reportLocation"}`
/// - `{"_type":"cmd","action":"setConfiguration","configuration":{"monitoring":1|2}}`
///   (1 significant, 2 active; other configuration keys are ignored)
/// - `{"_type":"cmd","action":"setProfile","profile":"active"|"significant"}`
public enum CommandMessage: Sendable, Hashable {
    /// Publish the current fix now, with trigger `r` (as the OwnTracks apps answer it).
    case reportLocation
    /// Switch to the given reporting profile.
    case setProfile(MonitoringMode)

    /// The largest command payload accepted, in bytes.
    public static let maxPayloadSize = 4096

    /// Parses a command payload.
    ///
    /// - Throws: ``CommandMessageError`` naming what is wrong; a rejected command changes nothing.
    public init(payload: Data) throws(CommandMessageError) {
        guard payload.count <= Self.maxPayloadSize else { throw .tooLarge(bytes: payload.count) }
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: payload) as? [String: Any] else {
                throw CommandMessageError.notAnObject
            }
            object = parsed
        } catch let error as CommandMessageError {
            throw error
        } catch {
            throw .notJSON
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
            switch name {
            case "active": self = .setProfile(.active)
            case "significant": self = .setProfile(.significant)
            default: throw .unknownProfile(name)
            }
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
