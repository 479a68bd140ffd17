/// The publisher's place rule as one reporting policy, for evaluations (the simulated day in
/// `PlaceDayBenchmark`): runs the active or the significant profile's policy and switches between
/// them as the places say, exactly as the publisher's `Reporter` does:
///
/// - every fix first goes through a ``PlaceTracker`` with the device's rules
///   (``PlaceRules/device(margin:defaultDwell:)``);
/// - a fix that completes transitions switches to the profile the last of them asks for (a fresh
///   policy, as every profile switch in the publisher) and is reported with trigger `c`;
/// - any other fix goes to the policy in force.
///
/// The `transition` messages themselves are counted in ``transitions``; they go out in the same
/// second as their `c` location, so they add bytes but no radio wake-up.
package struct PlaceProfilePolicy: ReportingPolicy {
    private var tracker: PlaceTracker
    private let makeActive: @Sendable () -> any ReportingPolicy
    private let makeSignificant: @Sendable () -> any ReportingPolicy
    private var policy: any ReportingPolicy
    /// The profile in force.
    package private(set) var mode: MonitoringMode
    /// The transitions so far, in order.
    package private(set) var transitions: [PlaceTransition] = []

    /// Starts in `initial` with fresh policies from the factories.
    package init(
        places: [Place], rules: PlaceRules = .device(), initial: MonitoringMode = .active,
        active: @escaping @Sendable () -> any ReportingPolicy, significant: @escaping @Sendable () -> any ReportingPolicy
    ) {
        tracker = PlaceTracker(places: places, rules: rules)
        makeActive = active
        makeSignificant = significant
        mode = initial
        policy = initial == .active ? active() : significant()
    }

    /// `<active policy>+places`.
    package var name: String { "\(makeActive().name)+places" }

    /// See the type's summary.
    package mutating func consider(_ fix: Fix) -> Report? {
        let completed = tracker.observe(fix)
        guard !completed.isEmpty else { return policy.consider(fix) }
        transitions += completed
        if let wanted = completed.compactMap(\.requestedProfile).last, wanted != mode {
            mode = wanted
            policy = wanted == .active ? makeActive() : makeSignificant()
        }
        return policy.forceReport(fix, trigger: .region)
    }

    /// Forces a report from the policy in force.
    package mutating func forceReport(_ fix: Fix, trigger: Trigger) -> Report {
        policy.forceReport(fix, trigger: trigger)
    }
}
