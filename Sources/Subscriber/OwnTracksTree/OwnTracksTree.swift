import Foundation
import WhereaboutsCore

/// The retained messages of every circle's OwnTracks tree as last published, and what must be
/// published to bring a tree up to date with a new view. Owned by the view publisher's task.
///
/// Topics, under the circle's one-level root (``root(viewPrefix:circle:)``,
/// `whereabouts-circles-<circle>` by default):
/// - `<root>/<user>/<device>`: the member's `location`, retained;
/// - `<root>/<user>/<device>/info`: the member's `card`, retained;
/// - `<root>/<user>/<device>/event`: `transition`s, not retained.
///
/// Why one level: the OwnTracks iOS app keys a friend by the first N levels of a message's topic,
/// N being the number of levels of its own publish topic (3 for `owntracks/<user>/<device>`;
/// owntracks/ios `OwnTracking.m`, `processMessage`), so the former layout
/// `<view prefix>/<circle>/owntracks/<user>/<device>` made every member one friend
/// `whereabouts/circles/<circle>`. The Android app keys by the whole topic, less `/info` or
/// `/event` (owntracks/android `MessageBase.contactKey`); both agree on three levels.
///
/// A message is published only when its bytes change. A member who leaves the circle, a circle
/// that is removed or stops asking for the tree, and a location that is withdrawn (`gone`,
/// `hidden`, away at the `place` level) get an empty retained message, which the apps take as
/// "remove this friend" (Android's `MessageClear`).
package struct OwnTracksTree {
    /// One message to publish.
    struct Message: Sendable, Hashable {
        var topic: String
        var payload: Data
        var retain: Bool
    }

    let viewPrefix: String
    private var published: [String: [String: Data]] = [:]  // circle id → topic → retained bytes
    private var places: [String: [Place]] = [:]  // circle id → places of its last view
    private var trackerIDs: [String: [MemberID: String]] = [:]  // circle id → member → tid shown
    private let encoder: JSONEncoder

    /// Creates an empty tree; nothing is known to be published yet (a restarted subscriber
    /// republishes every member once; retained messages make that harmless).
    init(viewPrefix: String) {
        self.viewPrefix = viewPrefix
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    /// The root of circle `id`'s tree, one topic level (the view prefix with `/` written as `-`,
    /// then `-<id>`); the subscription an OwnTracks app uses is `<root>/#`.
    package static func root(viewPrefix: String, circle id: String) -> String {
        viewPrefix.replacingOccurrences(of: "/", with: "-") + "-" + id
    }

    /// Where versions before the one-level root published circle `id`'s tree
    /// (`<view prefix>/<id>/owntracks`): cleared once per run (``update(with:face:)``).
    static func formerRoot(viewPrefix: String, circle id: String) -> String { "\(viewPrefix)/\(id)/owntracks" }

    /// The messages that bring circle `view`'s tree up to date. `face` returns a member's face
    /// image bytes when the view says it has one.
    mutating func update(with view: CircleView, face: (MemberView) async -> [UInt8]?) async -> [Message] {
        let root = Self.root(viewPrefix: viewPrefix, circle: view.circle.id)
        var wanted: [String: Data] = [:]
        var tids: [MemberID: String] = [:]
        for member in view.members {
            let friend = OwnTracksFriend(member, places: view.places, face: member.face == nil ? nil : await face(member))
            tids[MemberID(user: member.user, device: member.device)] = friend.card.tid
            let base = "\(root)/\(member.user)/\(member.device)"
            if let location = friend.location, let bytes = try? encoder.encode(location) { wanted[base] = bytes }
            if let bytes = try? encoder.encode(friend.card) { wanted[base + "/info"] = bytes }
        }
        let before = published[view.circle.id] ?? [:]
        var messages: [Message] = []
        if published[view.circle.id] == nil {
            // Once per circle and run: clear what versions before the one-level root left
            // retained under the former layout, so that no stale friend stays on the broker
            // (docs/owntracks.md, "Circles as friends"). The subscriber may write there: it
            // writes `<view prefix>/#`.
            let former = Self.formerRoot(viewPrefix: viewPrefix, circle: view.circle.id)
            for member in view.members {
                let base = "\(former)/\(member.user)/\(member.device)"
                messages += [Message(topic: base, payload: Data(), retain: true), Message(topic: base + "/info", payload: Data(), retain: true)]
            }
        }
        for topic in before.keys.sorted() where wanted[topic] == nil {
            messages.append(Message(topic: topic, payload: Data(), retain: true))
        }
        for (topic, payload) in wanted.sorted(by: { $0.key < $1.key }) where before[topic] != payload {
            messages.append(Message(topic: topic, payload: payload, retain: true))
        }
        published[view.circle.id] = wanted
        places[view.circle.id] = view.places
        trackerIDs[view.circle.id] = tids
        return messages
    }

    /// The `transition` for an `arrived`/`departed` event of a circle whose tree was published
    /// (``update(with:face:)``), or `nil` for other events and circles.
    func transition(for event: CircleEvent) -> Message? {
        guard event.event == .arrived || event.event == .departed, let name = event.place,
              let place = places[event.circle]?.first(where: { $0.name == name }) else { return nil }
        let tid = trackerIDs[event.circle]?[MemberID(user: event.user, device: event.device)]
            ?? OwnTracksFriend.defaultTrackerID(event.user)
        let transition = FriendTransition(tid: tid, tst: event.tst, event: event.event == .arrived ? "enter" : "leave", place: place)
        guard let bytes = try? encoder.encode(transition) else { return nil }
        let topic = "\(Self.root(viewPrefix: viewPrefix, circle: event.circle))/\(event.user)/\(event.device)/event"
        return Message(topic: topic, payload: bytes, retain: false)
    }

    /// Empty retained messages for everything circle `id`'s tree holds, and forgets it: the
    /// circle was removed or no longer asks for a tree.
    mutating func clear(circle id: String) -> [Message] {
        let topics = published.removeValue(forKey: id)?.keys.sorted() ?? []
        places[id] = nil
        trackerIDs[id] = nil
        return topics.map { Message(topic: $0, payload: Data(), retain: true) }
    }

    /// The circles whose tree has been published (and not cleared).
    var circles: [String] { published.keys.sorted() }

    /// Marks circle `id`'s tree as unknown after a failed publish: the next view republishes
    /// every message (and clears what it no longer holds).
    mutating func invalidate(circle id: String) {
        guard let topics = published[id] else { return }
        published[id] = topics.mapValues { _ in Data() }  // never equal to a real payload
    }
}
