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
        let (outcome, live, newestTst, statusChange, deadline) = Self.mutate(&states[member, default: MemberState()]) { state in
            var live = false
            if case .location(let location, _) = message {
                live = state.isLive(location, now: nowSeconds, retained: retained, liveWindow: settings.liveWindow)
            }
            let outcome = state.apply(message, receivedAt: now, retained: retained, settings: settings)
            let change = state.takeStatusChange(at: nowSeconds, staleTimeout: staleTimeout)
            return (outcome, live, state.fix?.tst, change, state.staleDeadline(staleTimeout: staleTimeout))
        }
        stats.accepted += 1
        var extraChange = false
        switch message {
        case .location(let location, let inregions):
            if outcome == .duplicate {
                metrics.ingest(outcome: "duplicate", reason: "location")
            } else if live {
                metrics.ingest(outcome: "live", reason: "location")
            } else {
                stats.backlog += 1
                let older = newestTst.map { $0 > location.tst } ?? false
                if older { stats.olderFixes += 1 }
                metrics.ingest(outcome: older ? "older" : "backlog", reason: "location")
            }
            if outcome != .duplicate, let inregions, newestTst == location.tst {
                extraChange = setRegions(inregions, of: member)
            }
        case let .transition(event, region, tst):
            metrics.ingest(outcome: "state", reason: "transition")
            extraChange = applyTransition(event: event, region: region, tst: tst, of: member, in: circleIDs, retained: retained)
        case .card(let name, let face):
            metrics.ingest(outcome: "state", reason: "card")
            extraChange = setCard(MemberCard(name: name, face: face), of: member)
        case .ignored(let type):
            stats.ignored += 1
            let reason = SubscriberMetrics.knownIgnoredTypes.contains(type) ? type : "other"
            stats.ignoredByType[reason, default: 0] += 1
            metrics.ingest(outcome: "ignored", reason: reason)
            logOnce(member: member, key: "type.\(reason)") {
                logger.notice(
                    "Ignored a message type the views do not use (logged once per member and type).",
                    metadata: ["whereabouts.member": "\(member)", "whereabouts.type": "\(type)"])
            }
        case .lastWill:
            metrics.ingest(outcome: "state", reason: "lwt")
        case .presence:
            metrics.ingest(outcome: "state", reason: "presence")
        }
        if let deadline { nextStaleCheck = min(nextStaleCheck, deadline) }
        switch outcome {
        case .duplicate:
            stats.duplicates += 1
            logger.debug("Dropped a duplicate fix.", metadata: ["whereabouts.member": "\(member)"])
            return .duplicate
        case .changed:
            markDirty(circleIDs, at: nowSeconds)
        case .unchanged:
            if statusChange != nil || extraChange { markDirty(circleIDs, at: nowSeconds) }
        }
        if let statusChange { announce(statusChange, of: member, in: circleIDs, at: nowSeconds) }
        return outcome == .changed || statusChange != nil || extraChange ? .changed : .unchanged
    }

    /// Counts the informational fields dropped from an accepted message of `member`, logging each
    /// field once per member.
    func countDropped(_ fields: [String], of member: MemberID, topic: String) {
        for field in fields {
            stats.droppedFields[field, default: 0] += 1
            metrics.droppedField(field)
            logOnce(member: member, key: "field.\(field)") {
                logger.notice(
                    "Dropped an informational field that was out of range or of the wrong type; the rest of the message was used (logged once per member and field).",
                    metadata: ["whereabouts.topic": "\(topic)", "whereabouts.field": "\(field)"])
            }
        }
    }

    /// Runs `log` the first time `key` is seen for `member`.
    func logOnce(member: MemberID, key: String, _ log: () -> Void) {
        if loggedOnce.insert("\(member.user)/\(member.device)\u{0}\(key)").inserted { log() }
    }

    private static func mutate<R>(_ state: inout MemberState, _ body: (inout MemberState) -> R) -> R {
        body(&state)
    }

    /// Counts and logs a rejected message: the first of each reason at info, the rest at debug
    /// (the rule for all rejected input), so one misbehaving client cannot flood the log.
    public func reject(_ reason: MessageRejectionReason, topic: String) {
        stats.rejected[reason.code, default: 0] += 1
        metrics.ingest(outcome: "rejected", reason: reason.code)
        let isFirst = stats.rejected[reason.code] == 1
        logger.log(
            level: isFirst ? .info : .debug,
            "Rejected a message\(isFirst ? "; further rejections for this reason are logged at debug level" : "").",
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
        statusDirty = true
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
