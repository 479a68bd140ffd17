import Foundation

/// The device entered or left one of its places.
public struct DevicePlaceTransition: Sendable, Hashable {
    /// Entering or leaving, as OwnTracks spells it in `event`.
    public enum Event: String, Sendable, Hashable, Codable {
        /// The device stayed inside for the dwell time.
        case enter
        /// The device went beyond the radius plus the margin.
        case leave
    }

    /// What happened.
    public var event: Event
    /// The place.
    public var place: DevicePlace
    /// The fix that completed the transition (its time and position are the event's).
    public var fix: Fix

    /// The profile this transition asks for: the place's `profile` on entering, its
    /// `profileOnLeave` on leaving; `nil` when the place names none.
    public var requestedProfile: MonitoringMode? {
        event == .enter ? place.profile : place.profileOnLeave
    }

    /// Creates a transition.
    public init(event: Event, place: DevicePlace, fix: Fix) {
        self.event = event
        self.place = place
        self.fix = fix
    }
}
