import Foundation

/// What the view publisher must send now, as collected by ``CircleViewStore/collectDue(at:)``.
package struct PublishBatch: Sendable {
    /// Views of circles that changed and whose view interval has passed.
    package var views: [CircleView] = []
    /// Membership events, in the order they happened.
    package var events: [CircleEvent] = []
    /// Ids of circles removed from the circles file (or moved to another shard): their retained
    /// view is cleared with an empty retained message.
    var removedCircles: [String] = []
    /// Ids of the circles (this shard's) that ask for an OwnTracks tree (`owntracks: true`).
    var ownTracksCircles: Set<String> = []
    /// When the publisher should look again even if no change arrives (a pending view, a
    /// member about to turn stale), or `nil` if only a change can make anything due.
    var nextDeadline: Date?

    /// Whether there is nothing to send.
    package var isEmpty: Bool { views.isEmpty && events.isEmpty && removedCircles.isEmpty }
}
