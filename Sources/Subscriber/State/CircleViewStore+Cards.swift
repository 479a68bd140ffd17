import Foundation

/// What a member's OwnTracks `card` said: a display name and a face image.
struct MemberCard: Sendable, Hashable {
    var name: String?
    var face: MemberFace?
}

/// The regions a device last reported being in: from a fix's `inregions`, or changed by its
/// `transition` events, whichever is newer.
struct ReportedRegions: Sendable, Hashable {
    var names: [String] = []
    var tst = Int.min
}

extension CircleViewStore {
    /// The face of `user`/`device` if it is a member of circle `circle` and sent a card with a
    /// face; `nil` otherwise, so a circle's page never reveals a device outside it.
    public func face(circle: String, user: String, device: String) -> MemberFace? {
        guard let found = circlesByID[circle], found.members.contains(where: { $0.user == user && $0.device == device })
        else { return nil }
        return cards[MemberID(user: user, device: device)]?.face
    }

    /// Stores a member's card; returns whether what views show changed.
    func setCard(_ card: MemberCard, of member: MemberID) -> Bool {
        guard cards[member] != card else { return false }
        cards[member] = card
        return true
    }

    /// Sets the regions a newer fix reported; returns whether they changed.
    func setRegions(_ names: [String], of member: MemberID) -> Bool {
        let tst = states[member]?.fix?.tst ?? .min
        let before = regions[member]
        guard tst >= before?.tst ?? .min else { return false }
        regions[member] = ReportedRegions(names: names, tst: tst)
        return before?.names != names
    }

    /// Applies a device's region transition: updates its regions if the transition is the newest
    /// news about them, and (unless the broker replayed it as retained state) sends an `enter` or
    /// `leave` event to each of its circles. Returns whether the views' regions changed.
    func applyTransition(
        event: String, region: String?, tst: Int, of member: MemberID, in circleIDs: [String], retained: Bool
    ) -> Bool {
        var changed = false
        if let region {
            var entry = regions[member] ?? ReportedRegions()
            if tst >= entry.tst {
                let before = entry.names
                entry.tst = tst
                if event == "enter" {
                    if !entry.names.contains(region) { entry.names.append(region) }
                } else {
                    entry.names.removeAll { $0 == region }
                }
                changed = before != entry.names
                regions[member] = entry
            }
        }
        if !retained {
            let kind: CircleEvent.Kind = event == "enter" ? .enter : .leave
            for id in circleIDs {
                pendingEvents.append(CircleEvent(circle: id, user: member.user, device: member.device, event: kind, tst: tst, region: region))
            }
            logger.info("Member reported a region transition.", metadata: ["whereabouts.member": "\(member)", "whereabouts.event": "\(event)"])
            signalChange()
        }
        return changed
    }
}
