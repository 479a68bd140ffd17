#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An OwnTracks `transition` message: the device entered or left one of its places, published on
/// `<base>/event`, not retained.
///
/// The fields are the apps': Android's `MessageTransition` (`event`, `desc`, `tid`, `t`, `tst`,
/// `wtst`, `acc`, `lat`, `lon`; owntracks/android,
/// project/app/src/main/java/org/owntracks/android/model/messages/MessageTransition.kt) and iOS's
/// (the same, plus `rid`, and `created_at` when sent late; owntracks/ios,
/// OwnTracks/OwnTracks/OwnTracksAppDelegate.m). `t` is `c`, a circular region.
public struct TransitionMessage: Sendable, Hashable, Codable {
    /// Always `"transition"`.
    public var type: String = "transition"
    /// The tracker id.
    public var tid: String
    /// Epoch seconds of the fix that completed the transition.
    public var tst: Int
    /// The waypoint's own timestamp (its identity in the apps).
    public var wtst: Int
    /// Latitude of that fix, degrees (6 decimals).
    public var lat: Double
    /// Longitude of that fix, degrees (6 decimals).
    public var lon: Double
    /// Horizontal accuracy of that fix in whole metres, above 0.
    public var acc: Int
    /// `enter` or `leave`.
    public var event: String
    /// The place's name.
    public var desc: String
    /// The trigger: `c`, a circular region.
    public var t: String = "c"
    /// The region id (iOS sends it).
    public var rid: String?
    /// Epoch seconds when the message was built, present when sent as backlog.
    public var createdAt: Int?

    enum CodingKeys: String, CodingKey {
        case type = "_type"
        case tid, tst, wtst, lat, lon, acc, event, desc, t, rid
        case createdAt = "created_at"
    }

    /// The wire message for `transition`, rounded as location messages are: the time and
    /// position of the fix that completed it, or (a transition the clock completed, which the
    /// publisher never sends) its time with the place's centre and radius as accuracy.
    public init(_ transition: PlaceTransition, tid: String) {
        let place = transition.place
        self.tid = tid
        tst = Int((transition.fix?.time ?? transition.time).timeIntervalSince1970.rounded(.down))
        wtst = place.tst
        lat = LocationMessage.roundCoordinate(transition.fix?.latitude ?? place.lat)
        lon = LocationMessage.roundCoordinate(transition.fix?.longitude ?? place.lon)
        let accuracy = transition.fix.map { $0.horizontalAccuracy ?? LocationMessage.unknownAccuracy } ?? place.radius
        acc = max(1, Int(accuracy.rounded(.up)))
        event = transition.event.rawValue
        desc = place.name
        rid = place.rid
    }
}
