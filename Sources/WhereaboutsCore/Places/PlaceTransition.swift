#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Someone entered or left a place, as ``PlaceTracker`` decides it. The publisher sends it as an
/// OwnTracks `transition`; the subscriber announces it as the circle events `arrived` and
/// `departed`.
public struct PlaceTransition: Sendable, Hashable {
    /// Entering or leaving, as OwnTracks spells it in a `transition`'s `event`.
    public enum Event: String, Sendable, Hashable, Codable {
        /// Stayed inside for the dwell time (or the device said it entered).
        case enter
        /// Went beyond the leave boundary for as many fixes as the rules ask (or the device said
        /// it left).
        case leave
    }

    /// What happened.
    public var event: Event
    /// The place.
    public var place: Place
    /// When it happened: for `enter`, the first fix inside (the dwell started then); for
    /// `leave`, the fix that completed it; for a device's own transition, its time.
    public var time: Date
    /// The fix that completed the transition, whose time and position the publisher's
    /// `transition` message carries; `nil` when the clock completed it (a dwell that passed in
    /// silence) or when a device's own transition did.
    public var fix: Fix?
    /// Whether it rests on replayed input (retained messages after a restart): the state counts,
    /// but nobody is told.
    public var replayed: Bool

    /// Creates a transition.
    public init(event: Event, place: Place, time: Date, fix: Fix? = nil, replayed: Bool = false) {
        self.event = event
        self.place = place
        self.time = time
        self.fix = fix
        self.replayed = replayed
    }

    /// The profile this transition asks for: the place's `profile` on entering, its
    /// `profileOnLeave` on leaving; `nil` when the place names none.
    public var requestedProfile: MonitoringMode? {
        event == .enter ? place.profile : place.profileOnLeave
    }
}
