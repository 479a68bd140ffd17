import Foundation
import Logging

extension CircleViewStore {
    /// What ``CircleViewStore/apply(_:from:retained:at:)`` did with a message.
    public enum ApplyOutcome: Sendable, Hashable {
        /// Accepted; at least one view changed.
        case changed
        /// Accepted; nothing shown changed (older fix outside the trail window, card, ignored type).
        case unchanged
        /// Dropped: the member already has a fix with this `tst`.
        case duplicate
        /// Rejected: the device is not a member of any circle this instance owns.
        case notAMember
    }

    /// Applies a validated message from `member` (identified by its topic) received at `now`.
    /// `retained` says whether the broker delivered it as a retained message (replayed state).
    @discardableResult
    public func apply(_ message: InboundMessage, from member: MemberID, retained: Bool, at now: Date = Date()) -> ApplyOutcome {
        guard let circleIDs = memberCircles[member] else {
            reject(.unknownTopic, topic: member.description)
            return .notAMember
        }
        let nowSeconds = now.timeIntervalSince1970
        let staleTimeout = settings.staleTimeout
        // Mutated in place (no copy of the trail's storage per message).
        let (outcome, newestTst, statusChange, deadline) = Self.mutate(&states[member, default: MemberState()]) { state in
            let outcome = state.apply(message, receivedAt: now, retained: retained, settings: settings)
            let change = state.takeStatusChange(at: nowSeconds, staleTimeout: staleTimeout)
            return (outcome, state.fix?.tst, change, state.staleDeadline(staleTimeout: staleTimeout))
        }
        stats.accepted += 1
        if case .location(let location) = message {
            if (location.createdAt ?? location.tst) > location.tst { stats.backlog += 1 }
            if outcome != .duplicate, let newestTst, newestTst > location.tst { stats.olderFixes += 1 }
        }
        if case .ignored = message { stats.ignored += 1 }
        if let deadline { nextStaleCheck = min(nextStaleCheck, deadline) }
        switch outcome {
        case .duplicate:
            stats.duplicates += 1
            logger.debug("Dropped a duplicate fix.", metadata: ["whereabouts.member": "\(member)"])
            return .duplicate
        case .changed:
            markDirty(circleIDs, at: nowSeconds)
        case .unchanged:
            if statusChange != nil { markDirty(circleIDs, at: nowSeconds) }
        }
        if let statusChange { announce(statusChange, of: member, in: circleIDs, at: nowSeconds) }
        return outcome == .changed || statusChange != nil ? .changed : .unchanged
    }

    private static func mutate<R>(_ state: inout MemberState, _ body: (inout MemberState) -> R) -> R {
        body(&state)
    }

    /// Counts and logs a rejected message.
    public func reject(_ reason: RejectionReason, topic: String) {
        stats.rejected[reason.code, default: 0] += 1
        logger.notice(
            "Rejected a message.",
            metadata: [
                "whereabouts.topic": "\(topic)", "whereabouts.reason": "\(reason.code)",
                "whereabouts.detail": "\(reason)",
            ])
    }

    func announce(_ status: MemberStatus, of member: MemberID, in circleIDs: [String], at now: Double) {
        let kind: CircleEvent.Kind
        switch status {
        case .online: kind = .online
        case .offline: kind = .offline
        case .stale: kind = .stale
        case .unknown: return
        }
        logger.info("Member is \(status.rawValue).", metadata: ["whereabouts.member": "\(member)"])
        for id in circleIDs {
            pendingEvents.append(CircleEvent(circle: id, user: member.user, device: member.device, event: kind, tst: Int(now)))
        }
        signalChange()
    }

    /// Marks circles as changed. A circle that becomes dirty wakes the publisher, which
    /// publishes it at once if its interval has passed, or sleeps until it has.
    func markDirty(_ circleIDs: [String], at now: Double) {
        var newlyDirty = false
        for id in circleIDs where dirty.insert(id).inserted { newlyDirty = true }
        if newlyDirty { signalChange() }
    }
}

extension CircleViewStore {
    /// Marks circles for publishing again (after a failed publish).
    public func invalidate(circleIDs: [String]) {
        for id in circleIDs where circlesByID[id] != nil {
            dirty.insert(id)
            lastCollected[id] = nil
        }
    }
}
