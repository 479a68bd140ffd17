/// A policy or filter parameter that cannot be used, naming the parameter as the command-line
/// flag spells it.
public enum PolicySettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The parameter must be a positive finite number.
    case notPositive(parameter: String, value: Double)
    /// The parameter must be zero or a positive finite number.
    case negative(parameter: String, value: Double)
    /// The policy name is not one Whereabouts knows.
    case unknownPolicy(String)
    /// A list of values could not be read.
    case malformedList(parameter: String, text: String)
    /// The name is not one of `bounded`'s rules.
    case unknownRule(String)

    /// A sentence saying what is wrong and what to do.
    public var description: String {
        switch self {
        case let .notPositive(parameter, value):
            "The value \(value) of --\(parameter) must be a positive number."
        case let .negative(parameter, value):
            "The value \(value) of --\(parameter) must be zero or a positive number."
        case let .unknownPolicy(name):
            "There is no policy named '\(name)'; choose from \(PolicyKind.allCases.map(\.rawValue).joined(separator: ", "))."
        case let .malformedList(parameter, text):
            "The value '\(text)' of --\(parameter) is not a comma-separated list of numbers."
        case let .unknownRule(name):
            "bounded has no rule named '\(name)'; choose from \(BoundedPolicy.Rule.allCases.map(\.rawValue).joined(separator: ", "))."
        }
    }
}
