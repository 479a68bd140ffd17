import ArgumentParser
import WhereaboutsCore

/// The command-line flags that choose reporting policies and set their parameters, shared by
/// `whereabouts-pub` and `whereabouts-eval` so that both take exactly the same flags.
///
/// Pull it into a command with `@OptionGroup var policy: PolicyOptions` and call ``settings()``
/// (in `validate()`, so that a bad value is a usage error) to get the ``PolicySettings``.
public struct PolicyOptions: ParsableArguments, Sendable {
    /// Creates the options with every default.
    public init() {}

    @Option(name: .long, help: ArgumentHelp(
        "The reporting policies to run, separated by commas: seed, interval, distance, significant, dead-reckoning, bounded.",
        valueName: "names"))
    public var policy: String = "seed,interval,distance,significant,dead-reckoning,bounded"

    @Option(name: .long, help: ArgumentHelp(
        "The error bounds in metres for bounded and dead-reckoning, separated by commas; each of the two policies runs once per value.",
        valueName: "metres"))
    public var epsilon: String = "50"

    @Option(name: .long, help: ArgumentHelp(
        "The longest time in seconds that bounded and dead-reckoning stay silent while dashboards extrapolate (sent as ms).",
        valueName: "seconds"))
    public var maxSilence: Int = BoundedPolicy.Parameters.defaultMaxSilence

    @Option(name: .long, help: ArgumentHelp(
        "The speed in m/s below which bounded sends no velocity, so dashboards hold the position.",
        valueName: "m/s"))
    public var stationarySpeed: Double = BoundedPolicy.Parameters().stationarySpeed

    @Option(name: .long, help: ArgumentHelp(
        "How far a past fix may stray from a candidate velocity's line, as a fraction of epsilon, for bounded's velocity fit.",
        valueName: "fraction"))
    public var fitTolerance: Double = BoundedPolicy.Parameters().fitTolerance

    @Option(name: .long, help: ArgumentHelp("The seed policy's minSpeed in m/s: slower than this, it reports by distance.", valueName: "m/s"))
    public var minSpeed: Double = SeedPolicy.Parameters().minSpeed

    @Option(name: .long, help: ArgumentHelp("The seed policy's minFilter in metres: its distance filter when slow.", valueName: "metres"))
    public var minFilter: Double = SeedPolicy.Parameters().minFilter

    @Option(name: .long, help: ArgumentHelp("The seed policy's minInterval in seconds: its time between reports when moving.", valueName: "seconds"))
    public var minInterval: Double = SeedPolicy.Parameters().minInterval

    @Option(name: .long, help: ArgumentHelp("The interval policy's time between reports in seconds.", valueName: "seconds"))
    public var interval: Double = IntervalPolicy.Parameters().interval

    @Option(name: .long, help: ArgumentHelp("The distance policy's distance between reports in metres.", valueName: "metres"))
    public var distance: Double = DistancePolicy.Parameters().distance

    @Option(name: .long, help: ArgumentHelp("The significant policy's smallest distance between reports in metres.", valueName: "metres"))
    public var significantDistance: Double = SignificantPolicy.Parameters().significantDistance

    @Option(name: .long, help: ArgumentHelp("The significant policy's shortest time between reports in seconds.", valueName: "seconds"))
    public var significantInterval: Double = SignificantPolicy.Parameters().significantInterval

    @Option(name: .long, help: ArgumentHelp("Reject fixes older than this many seconds; 0 switches the check off.", valueName: "seconds"))
    public var maxAge: Double = FixFilter.Settings.defaultMaxAge

    @Option(name: .long, help: ArgumentHelp("Reject fixes whose horizontal accuracy is worse than this many metres; 0 switches the check off.", valueName: "metres"))
    public var maxAccuracy: Double = FixFilter.Settings.defaultMaxAccuracy

    @Option(name: .long, help: ArgumentHelp("Reject fixes that imply a speed above this many m/s from the last accepted fix; 0 switches the check off.", valueName: "m/s"))
    public var maxSpeed: Double = FixFilter.Settings.defaultMaxSpeed

    @Option(name: .long, help: ArgumentHelp("Reject fixes stamped more than this many seconds in the future.", valueName: "seconds"))
    public var futureTolerance: Double = FixFilter.Settings.defaultFutureTolerance

    /// The policies named by `--policy`, in order.
    public func kinds() throws -> [PolicyKind] {
        try wrap { () throws(PolicySettingsError) in try PolicyKind.parseList(policy) }
    }

    /// The values of `--epsilon`.
    public func epsilons() throws -> [Double] {
        try wrap { () throws(PolicySettingsError) in try PolicySettings.parseNumbers(epsilon, parameter: "epsilon") }
    }

    /// Every policy's parameters from the flags; `bounded` and `dead-reckoning` get the first
    /// `--epsilon`. Throws a `ValidationError` naming the flag when a value is out of range.
    public func settings() throws -> PolicySettings {
        let epsilon = try epsilons().first ?? 50
        let settings = PolicySettings(
            seed: .init(minSpeed: minSpeed, minFilter: minFilter, minInterval: minInterval),
            interval: .init(interval: interval),
            distance: .init(distance: distance),
            significant: .init(significantDistance: significantDistance, significantInterval: significantInterval),
            deadReckoning: .init(epsilon: epsilon, maxSilence: maxSilence),
            bounded: .init(epsilon: epsilon, maxSilence: maxSilence, stationarySpeed: stationarySpeed, fitTolerance: fitTolerance)
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
        _ = try kinds()
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
