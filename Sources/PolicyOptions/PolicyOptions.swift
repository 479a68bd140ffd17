import ArgumentParser
import CommandLineDialect
import WhereaboutsCore

/// The command-line flags that choose reporting policies and set their parameters, shared by
/// `whereabouts-pub` and `whereabouts-eval` so that both take exactly the same flags.
///
/// Pull it into a command with `@OptionGroup var policy: PolicyOptions` and call ``settings()``
/// (in `validate()`, so that a bad value is a usage error) to get the ``PolicySettings``.
public struct PolicyOptions: ParsableArguments, Sendable {
    /// Creates the options with every default.
    public init() {}

    /// The config-file keys of these flags (`whereabouts-pub --config`): `policy` takes one of
    /// the standard policies.
    package static let configKeys: [ConfigKey] = [
        ConfigKey("policy", .word(PolicyKind.standard.map(\.rawValue))),
        ConfigKey("epsilon", .number),
        ConfigKey("max-silence", .integer),
        ConfigKey("stationary-speed", .number),
        ConfigKey("fit-tolerance", .number),
        ConfigKey("min-speed", .number),
        ConfigKey("min-filter", .number),
        ConfigKey("min-interval", .number),
        ConfigKey("interval", .number),
        ConfigKey("distance", .number),
        ConfigKey("significant-distance", .number),
        ConfigKey("significant-interval", .number),
        ConfigKey("max-age", .number),
        ConfigKey("max-accuracy", .number),
        ConfigKey("max-speed", .number),
        ConfigKey("future-tolerance", .number),
    ]

    /// The value of `--policy` (its help text says what it does).
    @Option(name: .long, help: ArgumentHelp(
        "The reporting policies to use, separated by commas: \(PolicyKind.standard.map(\.rawValue).joined(separator: ", ")) (default: all six and optimum in whereabouts-eval, bounded in whereabouts-pub), and for comparison owntracks-move and traccar (those apps' defaults). whereabouts-eval also takes optimum: the fewest dead-reckoning reports that keep the bound, chosen with hindsight.",
        valueName: "names"))
    public var policy: String?

    /// The value of `--epsilon` (its help text says what it does).
    @Option(name: .long, help: ArgumentHelp(
        "The error bounds in metres for bounded and dead-reckoning, separated by commas; each of the two policies runs once per value.",
        valueName: "metres"))
    public var epsilon: String = "50"

    /// The value of `--max-silence` (its help text says what it does).
    @Option(name: .long, help: ArgumentHelp(
        "The longest time in seconds that bounded and dead-reckoning stay silent while dashboards extrapolate (sent as ms).",
        valueName: "seconds"))
    public var maxSilence: Int = BoundedPolicy.Parameters.defaultMaxSilence

    /// The value of `--stationary-speed` (its help text says what it does).
    @Option(name: .long, help: ArgumentHelp(
        "No longer used: bounded's rule that sent no velocity below this speed did not pay off on datasets it was not chosen on (docs/policies.md). Still accepted and checked, so older command lines and configuration files keep working; whereabouts-pub warns when it is given.",
        valueName: "m/s"))
    public var stationarySpeed: Double?

    /// The value of `--fit-tolerance` (its help text says what it does).
    @Option(name: .long, help: ArgumentHelp(
        "No longer used: bounded's velocity fit that read it was replaced (docs/policies.md). Still accepted and checked, so older command lines and configuration files keep working; whereabouts-pub warns when it is given.",
        valueName: "fraction"))
    public var fitTolerance: Double?

    /// Warnings about flags given that have no effect, for the command to log when it starts
    /// (empty when there are none).
    public var ineffectiveFlagWarnings: [String] {
        var warnings: [String] = []
        if fitTolerance != nil {
            warnings.append("--fit-tolerance (fit-tolerance in a config file) has no effect: bounded no longer uses it (docs/policies.md); remove it.")
        }
        if stationarySpeed != nil {
            warnings.append("--stationary-speed (stationary-speed in a config file) has no effect: bounded no longer uses it (docs/policies.md); remove it.")
        }
        return warnings
    }

    /// The value of `--min-speed` (its help text says what it does).
    @Option(name: .long, help: ArgumentHelp("The seed policy's minSpeed in m/s: slower than this, it reports by distance.", valueName: "m/s"))
    public var minSpeed: Double = SeedPolicy.Parameters().minSpeed

    /// The value of `--min-filter` (its help text says what it does).
    @Option(name: .long, help: ArgumentHelp("The seed policy's minFilter in metres: its distance filter when slow.", valueName: "metres"))
    public var minFilter: Double = SeedPolicy.Parameters().minFilter

    /// The value of `--min-interval` (its help text says what it does).
    @Option(name: .long, help: ArgumentHelp("The seed policy's minInterval in seconds: its time between reports when moving.", valueName: "seconds"))
    public var minInterval: Double = SeedPolicy.Parameters().minInterval

    /// The value of `--interval` (its help text says what it does).
    @Option(name: .long, help: ArgumentHelp("The interval policy's time between reports in seconds.", valueName: "seconds"))
    public var interval: Double = IntervalPolicy.Parameters().interval

    /// The value of `--distance` (its help text says what it does).
    @Option(name: .long, help: ArgumentHelp("The distance policy's distance between reports in metres.", valueName: "metres"))
    public var distance: Double = DistancePolicy.Parameters().distance

    /// The value of `--significant-distance` (its help text says what it does).
    @Option(name: .long, help: ArgumentHelp("The significant policy's smallest distance between reports in metres.", valueName: "metres"))
    public var significantDistance: Double = SignificantPolicy.Parameters().significantDistance

    /// The value of `--significant-interval` (its help text says what it does).
    @Option(name: .long, help: ArgumentHelp("The significant policy's shortest time between reports in seconds.", valueName: "seconds"))
    public var significantInterval: Double = SignificantPolicy.Parameters().significantInterval

    /// The value of `--max-age` (its help text says what it does).
    @Option(name: .long, help: ArgumentHelp("Reject fixes older than this many seconds; 0 switches the check off.", valueName: "seconds"))
    public var maxAge: Double = FixFilter.Settings.defaultMaxAge

    /// The value of `--max-accuracy` (its help text says what it does).
    @Option(name: .long, help: ArgumentHelp("Reject fixes whose horizontal accuracy is worse than this many metres; 0 switches the check off.", valueName: "metres"))
    public var maxAccuracy: Double = FixFilter.Settings.defaultMaxAccuracy

    /// The value of `--max-speed` (its help text says what it does).
    @Option(name: .long, help: ArgumentHelp("Reject fixes that imply a speed above this many m/s from the last accepted fix, and send no velocity faster than this (bounded, dead-reckoning); 0 switches both off.", valueName: "m/s"))
    public var maxSpeed: Double = FixFilter.Settings.defaultMaxSpeed

    /// The value of `--future-tolerance` (its help text says what it does).
    @Option(name: .long, help: ArgumentHelp("Reject fixes stamped more than this many seconds in the future.", valueName: "seconds"))
    public var futureTolerance: Double = FixFilter.Settings.defaultFutureTolerance

    /// The policies named by `--policy`, in order, or `defaultKinds` when the flag is absent.
    public func kinds(default defaultKinds: [PolicyKind] = PolicyKind.standard) throws -> [PolicyKind] {
        guard let policy else { return defaultKinds }
        return try wrap { () throws(PolicySettingsError) in try PolicyKind.parseList(policy) }
    }

    /// The name `--policy` gives the offline optimum, which only `whereabouts-eval` computes.
    public static let optimumName = "optimum"

    /// What `whereabouts-eval` runs: the policies named by `--policy` (default all) and whether
    /// the flag names the offline optimum (`optimum`; default yes).
    public func evaluationKinds() throws -> (kinds: [PolicyKind], optimum: Bool) {
        guard let policy else { return (PolicyKind.standard, true) }
        let names = policy.split(separator: ",").map { $0.trimmingSpaces().lowercased() }
        let optimum = names.contains(Self.optimumName)
        let rest = names.filter { $0 != Self.optimumName }
        if rest.isEmpty {
            guard optimum else { throw ValidationError(PolicySettingsError.malformedList(parameter: "policy", text: policy).description) }
            return ([], true)
        }
        return (try wrap { () throws(PolicySettingsError) in try PolicyKind.parseList(rest.joined(separator: ",")) }, optimum)
    }

    /// The one policy a publisher runs: `--policy` naming a single policy (default `bounded`) with
    /// a single `--epsilon`. Throws a `ValidationError` when the flags name more than one.
    public func makeSinglePolicy(default defaultKind: PolicyKind = .bounded) throws -> any ReportingPolicy {
        let kinds = try kinds(default: [defaultKind])
        let epsilons = try epsilons()
        guard kinds.count == 1 else { throw ValidationError("Name exactly one policy with --policy, not \(kinds.count).") }
        guard epsilons.count == 1 else { throw ValidationError("Give exactly one --epsilon here, not \(epsilons.count).") }
        return try settings().makePolicy(kinds[0], epsilon: epsilons[0])
    }

    /// The values of `--epsilon`.
    public func epsilons() throws -> [Double] {
        try wrap { () throws(PolicySettingsError) in try PolicySettings.parseNumbers(epsilon, parameter: "epsilon") }
    }

    /// Every policy's parameters from the flags; `bounded` and `dead-reckoning` get the first
    /// `--epsilon`. Throws a `ValidationError` naming the flag when a value is out of range.
    public func settings() throws -> PolicySettings {
        let epsilon = try epsilons().first ?? 50
        let cap: Double? = maxSpeed == 0 ? nil : maxSpeed
        let settings = PolicySettings(
            seed: .init(minSpeed: minSpeed, minFilter: minFilter, minInterval: minInterval),
            interval: .init(interval: interval),
            distance: .init(distance: distance),
            significant: .init(significantDistance: significantDistance, significantInterval: significantInterval),
            deadReckoning: .init(epsilon: epsilon, maxSilence: maxSilence, maxSpeed: cap),
            bounded: .init(
                epsilon: epsilon, maxSilence: maxSilence,
                stationarySpeed: stationarySpeed ?? BoundedPolicy.Parameters().stationarySpeed,
                fitTolerance: fitTolerance ?? BoundedPolicy.Parameters().fitTolerance,
                maxSpeed: cap
            )
        )
        try wrap { () throws(PolicySettingsError) in try settings.validate() }
        return settings
    }

    /// The rejection filters' settings from the flags (0 switches a check off).
    public func filterSettings() throws -> FixFilter.Settings {
        func optional(_ value: Double) -> Double? { value == 0 ? nil : value }
        let settings = FixFilter.Settings(
            maxAge: optional(maxAge),
            maxAccuracy: optional(maxAccuracy),
            maxSpeed: optional(maxSpeed),
            futureTolerance: futureTolerance
        )
        try wrap { () throws(PolicySettingsError) in try settings.validate() }
        return settings
    }

    /// Checks every value; call from the command's `validate()`.
    public func validate() throws {
        _ = try evaluationKinds()
        _ = try settings()
        _ = try filterSettings()
    }

    private func wrap<T>(_ body: () throws(PolicySettingsError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw ValidationError(error.description)
        }
    }
}
