import Foundation

extension CircleViewStore {
    /// The subscription changes a circles-file reload requires.
    public struct MembershipChange: Sendable, Hashable {
        /// Devices now tracked that were not before: subscribe to their topics.
        public var added: [MemberID] = []
        /// Devices no longer in any owned circle: unsubscribe from their topics.
        public var removed: [MemberID] = []
    }

    /// Replaces the circles with those of `file` that this shard owns, keeping the state of every
    /// device that stays tracked. Sends `joined`/`left` events per circle, marks changed circles
    /// for publishing, and queues removed circles for clearing.
    public func replaceCircles(_ file: CirclesFile, at now: Date = Date()) -> MembershipChange {
        let nowSeconds = now.timeIntervalSince1970
        let owned = file.circles.filter { shard.owns(circleID: $0.id) }
        secrets = file.secrets
        let newByID = Dictionary(owned.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var newMemberCircles: [MemberID: [String]] = [:]
        for circle in owned {
            for member in circle.members { newMemberCircles[member.id, default: []].append(circle.id) }
        }
        for circle in owned {
            let before = Set(circlesByID[circle.id]?.members.map(\.id) ?? [])
            let after = Set(circle.members.map(\.id))
            for member in circle.members where !before.contains(member.id) {
                pendingEvents.append(CircleEvent(circle: circle.id, user: member.user, device: member.device, event: .joined, tst: Int(nowSeconds)))
            }
            for member in before.subtracting(after).sorted() {
                pendingEvents.append(CircleEvent(circle: circle.id, user: member.user, device: member.device, event: .left, tst: Int(nowSeconds)))
            }
            if circlesByID[circle.id] != circle { dirty.insert(circle.id) }
        }
        for old in circleList where newByID[old.id] == nil {
            removedCircles.append(old.id)
            lastCollected[old.id] = nil
            dirty.remove(old.id)
        }
        var change = MembershipChange()
        change.added = newMemberCircles.keys.filter { memberCircles[$0] == nil }.sorted()
        change.removed = memberCircles.keys.filter { newMemberCircles[$0] == nil }.sorted()
        for member in change.removed {
            states[member] = nil
            cards[member] = nil
            regions[member] = nil
        }
        circleList = owned
        circlesByID = newByID
        memberCircles = newMemberCircles
        logger.info(
            "Loaded the circles.",
            metadata: [
                "whereabouts.circles": "\(owned.count)", "whereabouts.added": "\(change.added.count)",
                "whereabouts.removed": "\(change.removed.count)",
            ])
        signalChange()
        return change
    }
}
