#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The rejection filters that stand in front of every reporting policy.
///
/// A `FixFilter` is a value: it remembers the last accepted fix (for the "not newer" and
/// "too fast" checks) and counts what it rejected. The checks run in a fixed order and the first
/// that fails names the reason: invalid coordinates, future timestamp, too old, too inaccurate,
/// not newer, too fast. A rejected fix changes nothing but the count.
public struct FixFilter: Sendable, Hashable {
    /// The thresholds; `nil` switches a check off.
    public var settings: Settings
    /// How many fixes were rejected, per reason.
    public private(set) var rejections = Rejections()
    /// How many fixes were accepted.
    public private(set) var accepted = 0
    /// The last accepted fix.
    public private(set) var lastAccepted: Fix?
    /// The last fix rejected as too fast, how many such rejections in a row agreed with it, and
    /// the first of that agreeing run.
    private var lastTooFast: Fix?
    private var consistentTooFast = 0
    private var firstAgreeing: Fix?
    /// How many times the filter took a new anchor (``reanchorAfter``, ``reanchorSeconds``).
    private(set) var reanchored = 0

    /// Creates a filter with the given thresholds (the documented defaults when omitted).
    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// Checks `fix` against every filter, with `now` as the clock's current time (in replay, the
    /// replay clock; replaying as fast as possible passes the fix's own time).
    ///
    /// - Returns: `nil` when the fix is accepted (and becomes the last accepted fix), else the
    ///   reason it was rejected (and counted).
    public mutating func check(_ fix: Fix, now: Date) -> FixFilter.Reason? {
        var rejection = reason(toReject: fix, now: now)
        if rejection == .tooFast {
            // When the last accepted fix was itself the outlier, or the device really jumped
            // (tunnel exit, ferry, a receiver that froze), every later fix looks too fast from it.
            // Fixes that keep agreeing with each other, for long enough, win: a spike goes out
            // and comes back within seconds, a jump stays.
            let agrees = lastTooFast.map { fix.time > $0.time && !isTooFast(fix, from: $0) } ?? false
            consistentTooFast = agrees ? consistentTooFast + 1 : 0
            if !agrees { firstAgreeing = fix }
            lastTooFast = fix
            let lasted = firstAgreeing.map { fix.time.timeIntervalSince($0.time) } ?? 0
            if consistentTooFast >= Self.reanchorAfter, lasted >= Self.reanchorSeconds {
                rejection = nil
                reanchored += 1
            }
        }
        if let rejection {
            rejections.record(rejection)
            return rejection
        }
        accepted += 1
        lastAccepted = fix
        lastTooFast = nil
        consistentTooFast = 0
        firstAgreeing = nil
        return nil
    }

    /// After this many consecutive too-fast fixes that agree with each other (each plausible from
    /// the one before), lasting at least ``reanchorSeconds``, the filter accepts the next
    /// agreeing one: the last accepted fix was the outlier, or the device jumped, not the new
    /// fixes.
    static let reanchorAfter = 3

    /// How long (s) too-fast fixes must keep agreeing with each other before the filter takes them
    /// as the new position: 30 s. A multipath spike (out and back, even as a burst of fixes that
    /// agree with each other) is over within seconds; a true jump stays. Counting fixes alone
    /// let 4-fix bursts through at 1 Hz (issue 9).
    static let reanchorSeconds = 30.0

    /// Whether reaching `fix` from the earlier `previous` needs more than `maxSpeed`.
    private func isTooFast(_ fix: Fix, from previous: Fix) -> Bool {
        guard let maxSpeed = settings.maxSpeed, let speed = fix.impliedSpeed(from: previous) else { return false }
        return speed > maxSpeed
    }

    /// Checks `fix` with "now" read from `clock` (the wall clock live, a ``ReplayFixClock`` in
    /// replay); see ``check(_:now:)``.
    public mutating func check(_ fix: Fix, clock: some FixClock) -> FixFilter.Reason? {
        check(fix, now: clock.now())
    }

    /// Whether `fix` passes every filter; counts a rejection like ``check(_:now:)``.
    public mutating func accept(_ fix: Fix, now: Date) -> Bool {
        check(fix, now: now) == nil
    }

    /// The reason the filters would reject `fix` now, without changing any state.
    public func reason(toReject fix: Fix, now: Date) -> FixFilter.Reason? {
        let time = fix.time.timeIntervalSince1970
        guard fix.coordinate.isValid, time.isFinite else { return .invalidCoordinates }
        let age = now.timeIntervalSince(fix.time)
        if let tolerance = settings.futureTolerance, -age > tolerance { return .futureTimestamp }
        if let maxAge = settings.maxAge, age > maxAge { return .tooOld }
        if let maxAccuracy = settings.maxAccuracy, let accuracy = fix.horizontalAccuracy,
           !(accuracy <= maxAccuracy) {
            return .tooInaccurate
        }
        guard let last = lastAccepted else { return nil }
        guard fix.time > last.time else { return .notNewer }
        return isTooFast(fix, from: last) ? .tooFast : nil
    }
}

extension FixFilter {
    /// The thresholds of the rejection filters. Every field has a documented default; `nil`
    /// switches that check off. The invalid-coordinates and not-newer checks are always on.
    public struct Settings: Sendable, Hashable, Codable {
        /// Reject fixes older than this many seconds relative to the clock's "now". Default 30 s:
        /// older fixes are history, not a live position.
        public var maxAge: Double?
        /// Reject fixes whose horizontal accuracy is worse than this many metres. Default 100 m:
        /// coarse network positions would drag a 50 m bound around. Fixes without an accuracy
        /// pass.
        public var maxAccuracy: Double?
        /// Reject fixes that imply a speed above this many m/s from the last accepted fix.
        /// Default 100 m/s (360 km/h): faster than any ground vehicle, slower than a multipath
        /// jump of 2 km in 5 s.
        public var maxSpeed: Double?
        /// Reject fixes stamped more than this many seconds after "now". Default 5 s: enough for
        /// clock skew between receiver and host, not for a wrong-century timestamp.
        public var futureTolerance: Double?

        /// Creates settings; every argument defaults to the documented value.
        public init(
            maxAge: Double? = Self.defaultMaxAge,
            maxAccuracy: Double? = Self.defaultMaxAccuracy,
            maxSpeed: Double? = Self.defaultMaxSpeed,
            futureTolerance: Double? = Self.defaultFutureTolerance
        ) {
            self.maxAge = maxAge
            self.maxAccuracy = maxAccuracy
            self.maxSpeed = maxSpeed
            self.futureTolerance = futureTolerance
        }

        /// The default `maxAge`: 30 seconds.
        public static let defaultMaxAge = 30.0
        /// The default `maxAccuracy`: 100 metres.
        public static let defaultMaxAccuracy = 100.0
        /// The default `maxSpeed`: 100 m/s.
        public static let defaultMaxSpeed = 100.0
        /// The default `futureTolerance`: 5 seconds.
        public static let defaultFutureTolerance = 5.0

        /// Checks that every threshold is a positive finite number.
        public func validate() throws(PolicySettingsError) {
            for (name, value) in [("max-age", maxAge), ("max-accuracy", maxAccuracy), ("max-speed", maxSpeed)] {
                if let value, !(value > 0 && value.isFinite) { throw .notPositive(parameter: name, value: value) }
            }
            if let futureTolerance, !(futureTolerance >= 0 && futureTolerance.isFinite) {
                throw .negative(parameter: "future-tolerance", value: futureTolerance)
            }
        }
    }
}
