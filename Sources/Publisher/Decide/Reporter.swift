#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Logging
import Outbox
import WhereaboutsCore

/// The publisher's decision state: filters, the policy of the profile in force, the last accepted
/// fix and the battery. It turns fixes and commands into outbox entries.
///
/// One actor owns all of it, so the source reader, the command listener, the signal handler and
/// the battery monitor can act on it concurrently without races. Every report is committed to the
/// outbox before ``handle(_:)`` or ``reportNow()`` returns, then the drainer is woken.
actor Reporter {
    private var filter: FixFilter
    /// What the filters rejected so far, per reason: the first of each reason is logged at info.
    private var rejections = Rejections()
    private var policy: any ReportingPolicy
    private var selector: ProfileSelector
    private var lastAccepted: Fix?
    private var battery: BatteryReading?
    private let policies: ProfilePolicies
    private let encoder: ReportEncoder
    private let outbox: Outbox
    private let topic: String
    private let clock: any FixClock
    private let metrics: PublisherMetrics
    private let doorbell: Doorbell
    private let logger: Logger
    private let resumeAfter: Int?
    private let heartbeat: Int
    private let promises: PromiseLedger?
    private var skipped = 0
    private var lostInRow = 0
    /// The device's places, when it has any (`--places`, `setWaypoints`).
    private var places: DevicePlaces?

    /// Creates the reporter, starting in `initialProfile`.
    ///
    /// - Parameter clock: Where "now" comes from: the wall clock live, the replay clock in a replay.
    /// - Parameter resumeAfter: For a replayed recording, the newest `tst` an earlier run
    ///   committed: fixes up to that second are skipped, so a restart resumes where it stopped.
    init(
        settings: PublisherSettings, filter: FixFilter, policies: ProfilePolicies,
        initialProfile: MonitoringMode = .active, outbox: Outbox, metrics: PublisherMetrics,
        doorbell: Doorbell, clock: any FixClock = WallFixClock(), resumeAfter: Int? = nil,
        promises: PromiseLedger? = nil, places: DevicePlaces? = nil, logger: Logger
    ) {
        self.places = places
        // Inside a place with a profile when the last run stopped: that profile again.
        let initialProfile = places?.inside.last(where: { $0.profile != nil })?.profile ?? initialProfile
        self.resumeAfter = resumeAfter
        self.heartbeat = settings.heartbeat
        self.promises = promises
        self.filter = filter
        self.policies = policies
        self.selector = ProfileSelector(initial: initialProfile)
        self.policy = policies.makePolicy(for: initialProfile)
        self.encoder = ReportEncoder(tid: settings.tid, maxSilence: settings.maxSilence)
        self.outbox = outbox
        self.topic = settings.topicBase
        self.clock = clock
        self.metrics = metrics
        self.doorbell = doorbell
        self.logger = logger
        metrics.significantProfile.record(initialProfile == .significant ? 1 : 0)
    }

    /// The profile in force.
    var profile: MonitoringMode { selector.effective }

    /// Runs one fix from the source through the filters and the policy; commits a report if the
    /// policy makes one. Returns the report, if any.
    @discardableResult
    func handle(_ fix: Fix) async throws(OutboxError) -> Report? {
        metrics.fixesRead.increment()
        if let resumeAfter {
            if fix.time.timeIntervalSince1970 < Double(resumeAfter) + 1 {
                skipped += 1
                return nil
            }
            if skipped > 0 {
                logger.info("Resumed the recording after the last committed report.", metadata: ["whereabouts.skipped": "\(skipped)"])
                skipped = 0
            }
        }
        if let reason = filter.check(fix, now: clock.now()) {
            metrics.rejected(reason: reason.rawValue)
            let isFirst = rejections.record(reason)
            logger.log(
                level: isFirst ? .info : .debug,
                "Fix dropped\(isFirst ? "; further fixes dropped for this reason are logged at debug level" : "").",
                metadata: ["whereabouts.reason": "\(reason.rawValue)", "whereabouts.rejected": "\(rejections[reason])"])
            return nil
        }
        lastAccepted = fix
        if let transitions = places?.update(with: fix), !transitions.isEmpty {
            return try await commit(transitions, at: fix)
        }
        guard let report = policy.consider(fix) else { return nil }
        try await commit(report)
        return report
    }

    /// Commits the `transition` messages (on `<base>/event`, through the outbox like every
    /// report), switches profile as the places say, then reports `fix` with trigger `c`, as the
    /// OwnTracks apps send a location with each transition.
    private func commit(_ transitions: [PlaceTransition], at fix: Fix) async throws(OutboxError) -> Report {
        for transition in transitions {
            logger.info(transition.event == .enter ? "Entered a place." : "Left a place.", metadata: [
                "whereabouts.place": "\(transition.place.name)",
            ])
            metrics.transitions.increment()
            await store(topic: topic + "/event", payload: ReportEncoder.encode(TransitionMessage(transition, tid: encoder.tid)),
                        tst: Int(fix.time.timeIntervalSince1970.rounded(.down)), what: "transition")
            if let mode = transition.requestedProfile {
                apply(selector.request(mode), reason: "place \(transition.place.name) \(transition.event.rawValue)")
            }
        }
        let report = policy.forceReport(fix, trigger: .region)
        try await commit(report)
        return report
    }

    /// Stores a message that is not a location report; a failure is logged and counted as lost,
    /// as reports are.
    private func store(topic: String, payload: Data, tst: Int, what: String) async {
        do {
            let result = try await outbox.append(topic: topic, payload: payload, tst: tst)
            metrics.outboxDepth.record(result.depth)
            if result.dropped > 0 { metrics.droppedByCap.increment(by: result.dropped) }
            doorbell.ring()
        } catch {
            metrics.lost.increment()
            logger.error("A \(what) was lost: the outbox could not store it.", metadata: [
                "whereabouts.tst": "\(tst)", "whereabouts.error": "\(error)",
            ])
        }
    }

    /// Applies a `setWaypoints` command; invalid waypoints are logged (one warning each) and
    /// counted. Returns how many waypoints were stored.
    @discardableResult
    func setWaypoints(_ batch: WaypointBatch) -> Int {
        var current = places ?? DevicePlaces(filePlaces: [], rules: .device(), store: nil, logger: logger)
        let applied = current.set(batch, now: Int(Date().timeIntervalSince1970))
        places = current
        for rejection in applied.rejected {
            metrics.waypointRejected()
            logger.warning("Waypoint rejected.", metadata: ["whereabouts.reason": "\(rejection)"])
        }
        logger.info("Waypoints set.", metadata: [
            "whereabouts.waypoints.stored": "\(applied.stored)", "whereabouts.waypoints.rejected": "\(applied.rejected.count)",
            "whereabouts.places": "\(current.all.count)",
        ])
        return applied.stored
    }

    /// Applies `clearWaypoints`: removes the waypoints set by command. Returns how many.
    @discardableResult
    func clearWaypoints() -> Int {
        guard var current = places else { return 0 }
        let removed = current.clear()
        places = current
        logger.info("Waypoints cleared.", metadata: ["whereabouts.waypoints.removed": "\(removed)"])
        return removed
    }

    /// The device's places (file places first), for the `waypoints` reply.
    var allPlaces: [Place] { places?.all ?? [] }

    /// Reports the last accepted fix now with trigger `m` (the `reportLocation` command).
    /// Returns false when there is no fix yet.
    @discardableResult
    func reportNow() async throws(OutboxError) -> Bool {
        guard let fix = lastAccepted else {
            logger.info("reportLocation asked, but there is no fix yet.")
            return false
        }
        let report = policy.forceReport(fix, trigger: .requested)
        try await commit(report)
        return true
    }

    /// Asks for a profile (command or signal); switches if the battery allows.
    func request(_ mode: MonitoringMode, by origin: String) {
        apply(selector.request(mode), reason: origin)
    }

    /// Records a battery reading and whether the low-battery rule holds.
    func updateBattery(_ reading: BatteryReading?, low: Bool) {
        battery = reading
        if let reading { metrics.recordBattery(level: reading.level) }
        apply(selector.setBatteryLow(low), reason: "battery")
    }

    private func apply(_ change: (before: MonitoringMode, after: MonitoringMode), reason: String) {
        guard change.before != change.after else { return }
        policy = policies.makePolicy(for: change.after)
        metrics.significantProfile.record(change.after == .significant ? 1 : 0)
        logger.info("Profile switched.", metadata: [
            "whereabouts.profile": "\(change.after.name)",
            "whereabouts.profile.previous": "\(change.before.name)",
            "whereabouts.reason": "\(reason)",
        ])
    }

    /// Commits a report. A report the outbox cannot store (a full disk, an I/O error) is logged
    /// at error level and counted in `whereabouts_pub_reports_lost_total`, and reading goes on:
    /// the drainer keeps publishing what is stored (which frees space), and the next report is
    /// tried afresh. Only one error line is written per run of failures.
    private func commit(_ report: Report) async throws(OutboxError) {
        var message = encoder.message(for: report, mode: selector.effective, battery: battery)
        if let inside = places?.inside, !inside.isEmpty {
            message.inregions = inside.map(\.name)
            message.inrids = inside.map(\.rid)
        }
        // The promise is made on the wall clock: it is about when messages arrive, whatever the
        // fixes' own times (a replayed recording keeps its old ones).
        let due = Int(Date().timeIntervalSince1970) + heartbeat
        message.due = due
        let result: OutboxAppendResult
        do {
            result = try await outbox.append(topic: topic, payload: ReportEncoder.encode(message), tst: message.tst)
        } catch {
            metrics.lost.increment()
            lostInRow += 1
            logger.log(level: lostInRow == 1 ? .error : .debug, "Report lost: the outbox could not store it.", metadata: [
                "whereabouts.tst": "\(message.tst)", "whereabouts.error": "\(error)",
                "whereabouts.lost": "\(lostInRow)",
            ])
            return
        }
        if lostInRow > 0 {
            logger.notice("The outbox stores reports again.", metadata: ["whereabouts.lost": "\(lostInRow)"])
            lostInRow = 0
        }
        promises?.promise(due)
        metrics.reported.increment()
        metrics.outboxDepth.record(result.depth)
        if result.dropped > 0 { metrics.droppedByCap.increment(by: result.dropped) }
        logger.debug("Report committed.", metadata: [
            "whereabouts.tst": "\(message.tst)", "whereabouts.trigger": "\(report.trigger.rawValue)",
            "whereabouts.outbox.depth": "\(result.depth)",
        ])
        doorbell.ring()
    }
}
