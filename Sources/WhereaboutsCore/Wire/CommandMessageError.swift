#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a command payload was rejected.
public enum CommandMessageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The payload is larger than ``CommandMessage/maxPayloadSize``.
    case tooLarge(bytes: Int)
    /// The payload is not JSON.
    case notJSON
    /// The payload is JSON but not an object.
    case notAnObject
    /// `_type` is missing or not `"cmd"`.
    case notACommand
    /// `action` is missing or not a string.
    case missingAction
    /// `action` names no command the publisher knows.
    case unknownAction(String)
    /// `setConfiguration` without an integer `configuration.monitoring`.
    case missingMonitoring
    /// `configuration.monitoring` is not 1 (significant) or 2 (active).
    case unsupportedMonitoring(Int)
    /// `setProfile` with a profile other than `active` or `significant`.
    case unknownProfile(String)
    /// `setWaypoints` without a list of waypoints.
    case missingWaypoints

    /// A sentence naming what is wrong.
    public var description: String {
        switch self {
        case let .tooLarge(bytes): "The command is \(bytes) bytes, more than the \(CommandMessage.maxPayloadSize) accepted."
        case .notJSON: "The command is not valid JSON."
        case .notAnObject: "The command is not a JSON object."
        case .notACommand: "The command's _type is not \"cmd\"."
        case .missingAction: "The command has no string \"action\"."
        case let .unknownAction(action): "The command action \"\(action)\" is not supported (reportLocation, setConfiguration, setProfile, setWaypoints, clearWaypoints, waypoints)."
        case .missingMonitoring: "setConfiguration needs an integer configuration.monitoring (1 significant, 2 active)."
        case let .unsupportedMonitoring(value): "configuration.monitoring \(value) is not supported: use 1 (significant) or 2 (active)."
        case let .unknownProfile(name):
            "The profile \"\(name)\" is not known: use \(MonitoringMode.allCases.map { "\"\($0.name)\"" }.joined(separator: " or "))."
        case .missingWaypoints:
            "setWaypoints needs \"waypoints\": {\"_type\":\"waypoints\",\"waypoints\":[…]} (or a list of waypoints)."
        }
    }
}
