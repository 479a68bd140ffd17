import Foundation
import Logging
import OwnTracksCrypto
import WhereaboutsCore

/// The one owner of the subscriber's state: the circles this instance owns, every tracked
/// member's fix, trail and status, the ingest counters, and which views are due.
///
/// Read side (the dashboard): ``circles()``, ``view(id:at:)``, ``trail(circle:user:device:)``,
/// ``updates()``. Write side (ingest and the circles-file watcher): ``apply(_:from:retained:at:)``,
/// ``reject(_:topic:)``, ``replaceCircles(_:at:)``. The view publisher calls ``collectDue(at:)``.
///
/// All stored state is the private ``State`` below; the other files of this folder hold the
/// concepts it is made of (``CircleRoster``, ``PublishSchedule``, ``MemberState`` ...).
package actor CircleViewStore {
    /// The freshness and history settings in force.
    package let settings: ViewSettings
    /// The shard this instance serves.
    package let shard: Shard
    /// At most this often, in seconds, a circle's view is collected for publishing.
    package let viewInterval: Double

    private let logger: Logger
    /// The Prometheus series (thread-safe on its own); the view publisher counts what it sends.
    nonisolated let metrics = SubscriberMetrics()
    private var state: State

    /// Everything the store holds, in one place.
    private struct State {
        var roster: CircleRoster
        var members: [MemberID: MemberState] = [:]
        var cards: [MemberID: MemberCard] = [:]
        var regions: [MemberID: ReportedRegions] = [:]
        /// The receipt stamp of each member's newest report (docs/receipts.md).
        var deliveries: [MemberID: ReportStamp] = [:]
        var places = PlaceOccupancy()
        var keys: DecryptionKeys
        var stats = IngestStatistics()
        var loggedOnce = OnceLog()
        /// Whether a member's status changed since the status file was last written.
        var statusDirty = false
        var schedule: PublishSchedule
        /// Wakes the view publisher (``waitForChanges()``).
        var change = ChangeSignal()
        /// Wakes the status file's writer (``waitForStatusWork()``): a status changed, or a
        /// report waits for a write to become durable.
        var statusWork = ChangeSignal()
        var subscribers = StreamSubscribers<CircleView>()
        var eventSubscribers = StreamSubscribers<CircleEvent>()
    }

    /// Creates a store for the circles of `file` that `shard` owns. Loading is not a membership
    /// change: no `joined` events are sent for the initial members.
    ///
    /// The first views become due one `viewInterval` after `now`, so that the retained messages
    /// the broker replays on subscribe are in them and a restart never publishes a view of
    /// `unknown` members over a good retained one.
    package init(
        circles file: CirclesFile, shard: Shard = .all, settings: ViewSettings = ViewSettings(),
        viewInterval: Double = 1, logger: Logger, now: Date = Date()
    ) {
        self.settings = settings
        self.shard = shard
        self.viewInterval = viewInterval
        self.logger = logger
        let owned = file.circles.filter { shard.owns(circleID: $0.id) }
        state = State(
            roster: CircleRoster(owned), keys: DecryptionKeys(file.secrets),
            schedule: PublishSchedule(circleIDs: owned.map(\.id), now: now.timeIntervalSince1970))
    }

    // MARK: Read side

    /// The circles this instance owns, in circles-file order.
    package func circles() -> [CircleSummary] {
        state.roster.circles.map(\.summary)
    }

    /// The circle with `id`, if this instance owns it.
    package func circle(id: String) -> Circle? {
        state.roster.circle(id: id)
    }

    /// Every member device this instance tracks, sorted.
    package func trackedMembers() -> [MemberID] {
        state.roster.trackedMembers.sorted()
    }

    /// Whether `member` belongs to a circle this instance owns.
    func tracks(_ member: MemberID) -> Bool {
        state.roster.tracks(member)
    }

    /// The ids of the circles `member` belongs to, or `nil` when it is not tracked: ingest's one
    /// roster lookup per message, handed on to ``apply(_:from:circleIDs:retained:at:)``.
    func circleIDs(of member: MemberID) -> [String]? {
        state.roster.circleIDs(of: member)
    }

    /// The current view of circle `id` at `now`, or `nil` if this instance does not own it.
    package func view(id: String, at now: Date = Date()) -> CircleView? {
        guard let circle = state.roster.circle(id: id) else { return nil }
        return buildView(circle, at: now.timeIntervalSince1970)
    }

    /// The current view of every circle this instance owns, all at the same instant `now`, in
    /// circles-file order.
    package func views(at now: Date = Date()) -> [CircleView] {
        let time = now.timeIntervalSince1970
        return state.roster.circles.map { buildView($0, at: time) }
    }

    /// The trail of `user`/`device` (oldest first) if it is a member of circle `circle`; `nil`
    /// when the circle or the membership does not exist, so a circle's page never reveals a
    /// device outside it.
    package func trail(circle: String, user: String, device: String) -> [TrailPoint]? {
        let id = MemberID(user: user, device: device)
        guard let member = state.roster.member(id, inCircle: circle), let found = state.roster.circle(id: circle) else { return nil }
        // Only an `exact` audience sees a trail.
        guard found.level(of: member) == .exact else { return [] }
        return state.members[id]?.trail.trailPoints ?? []
    }

    /// The face of `user`/`device` if it is a member of circle `circle` and sent a card with a
    /// face; `nil` otherwise, so a circle's page never reveals a device outside it.
    package func face(circle: String, user: String, device: String) -> MemberFace? {
        let id = MemberID(user: user, device: device)
        guard state.roster.member(id, inCircle: circle) != nil else { return nil }
        return state.cards[id]?.face
    }

    /// What is known of each of `members` (`nil`: every member) beyond the history (card,
    /// reported regions, the live fix's extra keys), for the Recorder API; members the store has
    /// nothing of are absent.
    package func details(of members: [MemberID]? = nil) -> [MemberID: MemberDetails] {
        var details: [MemberID: MemberDetails] = [:]
        for id in members ?? Array(Set(state.members.keys).union(state.cards.keys).union(state.regions.keys)) {
            let card = state.cards[id], regions = state.regions[id]?.names ?? [], fix = state.members[id]?.fix
            guard card != nil || !regions.isEmpty || fix != nil else { continue }
            details[id] = MemberDetails(name: card?.name, face: card?.face, inregions: regions, fix: fix)
        }
        return details
    }

    /// The ingest and publishing counters.
    package func statistics() -> IngestStatistics {
        state.stats
    }

    /// The live fix of `member` (its newest by `tst`), if any: what the outlier rules judge a new
    /// fix against.
    func liveFix(of member: MemberID) -> LocationMessage? {
        state.members[member]?.fix
    }

    /// Where a member's state is held in the store: found once per message by ingest
    /// (``memberSlot(of:)``) and used for both the speed rule and the apply, one hash lookup
    /// instead of two. Valid until the store next adds or removes a member.
    typealias MemberSlot = Dictionary<MemberID, MemberState>.Index

    /// Where `member`'s state is held, or `nil` before anything of it was applied.
    func memberSlot(of member: MemberID) -> MemberSlot? {
        state.members.index(forKey: member)
    }

    /// The time and position of the live fix of the member at `slot`, read in place: the
    /// dictionary's getters copy the member's whole state (trail, fix) per message (7.5 % of a
    /// profiled ingest), its in-place accessor does not.
    func livePoint(at slot: MemberSlot) -> OutlierRules.LivePoint? {
        Self.mutate(&state.members.values[slot]) { $0.livePoint }
    }

    /// Each tracked member's circle ids, for the history's per-circle retention.
    func historyMembership() -> [MemberID: [String]] {
        state.roster.membership
    }

    /// Views as they are published, from now on. Each call returns an independent sequence.
    package func updates() -> CircleViewUpdates {
        // Unbounded: one collection yields every due view at once, and a bound would drop the
        // oldest ones, which can be some circle's only, newest view. The dashboard reads with
        // one consumer that only encodes (ViewBroadcaster), so nothing accumulates.
        CircleViewUpdates(stream: openStream(in: \.subscribers))
    }

    /// Events as they are published, from now on. Each call returns an independent sequence.
    package func eventUpdates() -> CircleEventUpdates {
        // Unbounded like `updates()`: the dashboard's one consumer only encodes and queues.
        CircleEventUpdates(stream: openStream(in: \.eventSubscribers))
    }

    /// Opens an unbounded stream fed by the subscribers at `subscribers`; it unregisters itself
    /// when its reader stops.
    private func openStream<Element: Sendable>(in subscribers: any WritableKeyPath<State, StreamSubscribers<Element>> & Sendable) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .unbounded)
        let id = state[keyPath: subscribers].add(continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.closeStream(id, in: subscribers) }
        }
        return stream
    }

    private func closeStream<Element: Sendable>(_ id: UInt64, in subscribers: any WritableKeyPath<State, StreamSubscribers<Element>> & Sendable) {
        state[keyPath: subscribers].remove(id)
    }

    /// The subscriber's metrics in the Prometheus text format: every ingest counter, and gauges
    /// taken now (members by status, WebSocket clients, queue depths). Served on `GET /metrics`.
    package func renderMetrics(at now: Date = Date()) -> [UInt8] {
        let nowSeconds = now.timeIntervalSince1970
        var members: [MemberStatus: Int] = [:]
        for member in state.roster.trackedMembers {
            let status = state.members[member]?.status(at: nowSeconds, settings: settings) ?? .unknown
            members[status, default: 0] += 1
        }
        return metrics.render(members: members, webSocketClients: state.subscribers.count, queues: state.schedule.queueDepths)
    }

    private func buildView(_ circle: Circle, at now: Double) -> CircleView {
        CircleView(
            circle: circle.summary,
            generatedAt: now,
            members: circle.members.map { member in
                MemberView(
                    member, state: state.members[member.id], card: state.cards[member.id],
                    regions: state.regions[member.id],
                    place: state.places.current(of: member.id, in: circle),
                    at: now, settings: settings, delivery: state.deliveries[member.id]
                ).redacted(to: circle.level(of: member), grid: circle.grid)
            },
            places: circle.places
        )
    }

    // MARK: Write side

    /// Applies a validated message from `member` (identified by its topic) received at `now`.
    /// `retained` says whether the broker delivered it as a retained message (replayed state).
    @discardableResult
    package func apply(_ message: InboundMessage, from member: MemberID, retained: Bool, at now: Date = Date()) -> ApplyOutcome {
        guard let circleIDs = state.roster.circleIDs(of: member) else {
            reject(.unknownTopic, topic: member.description)
            return .notAMember
        }
        return apply(message, from: member, circleIDs: circleIDs, retained: retained, at: now)
    }

    /// Applies a validated message from `member`, a member of the circles `circleIDs` (ingest
    /// looked them up already: one roster lookup per message), whose state is at `slot` (ingest
    /// found it already: ``memberSlot(of:)``; `nil`: looked up here, added when new).
    func apply(
        _ message: InboundMessage, from member: MemberID, circleIDs: [String], retained: Bool, at now: Date, slot: MemberSlot? = nil
    ) -> ApplyOutcome {
        let nowSeconds = now.timeIntervalSince1970
        let settings = settings
        // Mutated in place (no copy of the trail's storage per message).
        func step(_ member: inout MemberState) -> (MemberState.Outcome, Bool, Int?, MemberStatus?, Double?) {
            var live = false
            if case .location(let location, _) = message {
                live = member.isLive(location, now: nowSeconds, retained: retained, liveWindow: settings.liveWindow)
            }
            let outcome = member.apply(message, receivedAt: now, retained: retained, settings: settings)
            let change = member.takeStatusChange(at: nowSeconds, settings: settings)
            return (outcome, live, member.fix?.tst, change, member.nextStatusChange(after: nowSeconds, settings: settings))
        }
        let (outcome, live, newestTst, statusChange, deadline) =
            if let slot = slot ?? state.members.index(forKey: member) {
                Self.mutate(&state.members.values[slot], step)
            } else {
                Self.mutate(&state.members[member, default: MemberState()], step)
            }
        state.stats.accepted += 1
        var extraChange = false
        // A new live fix for the place rules, applied after the status events are queued.
        // Only the four fields the rules read: the whole fix copied (with its strings) cost more.
        var placeFix: (tst: Int, coordinate: Coordinate, accuracy: Int, quiet: Bool)?
        switch message {
        case .location(let location, let inregions):
            if outcome == .duplicate {
                metrics.ingest(outcome: "duplicate", reason: "location")
            } else if live {
                metrics.ingest(outcome: "live", reason: "location")
            } else {
                state.stats.backlog += 1
                let older = newestTst.map { $0 > location.tst } ?? false
                if older { state.stats.olderFixes += 1 }
                metrics.ingest(outcome: older ? "older" : "backlog", reason: "location")
            }
            if outcome != .duplicate, newestTst == location.tst {
                if let inregions {
                    extraChange = state.regions[member, default: ReportedRegions()].set(inregions, tst: location.tst)
                }
                // Replayed retained state and backlog are history: shown, never announced.
                placeFix = (location.tst, Coordinate(latitude: location.lat, longitude: location.lon), location.acc, retained || !live)
            }
        case let .transition(event, region, tst):
            metrics.ingest(outcome: "state", reason: "transition")
            extraChange = applyTransition(event: event, region: region, tst: tst, of: member, in: circleIDs, retained: retained)
        case .card(let name, let face):
            metrics.ingest(outcome: "state", reason: "card")
            let card = MemberCard(name: name, face: face)
            extraChange = state.cards[member] != card
            state.cards[member] = card
        case .ignored(let type):
            state.stats.ignored += 1
            let reason = SubscriberMetrics.knownIgnoredTypes.contains(type) ? type : "other"
            state.stats.ignoredByType[reason, default: 0] += 1
            metrics.ingest(outcome: "ignored", reason: reason)
            if state.loggedOnce.isFirst("type.\(reason)", of: member) {
                logger.notice(
                    "Ignored a message type the views do not use (logged once per member and type).",
                    metadata: ["whereabouts.member": "\(member)", "whereabouts.type": "\(type)"])
            }
        case .lastWill:
            metrics.ingest(outcome: "state", reason: "lwt")
        case .presence:
            metrics.ingest(outcome: "state", reason: "presence")
        }
        if let deadline { state.schedule.checkStatus(by: deadline) }
        switch outcome {
        case .duplicate:
            state.stats.duplicates += 1
            logger.debug("Dropped a duplicate fix.", metadata: ["whereabouts.member": "\(member)"])
            return .duplicate
        case .changed:
            markDirty(circleIDs)
        case .unchanged:
            if statusChange != nil || extraChange { markDirty(circleIDs) }
        }
        if let statusChange { announce(statusChange, of: member, in: circleIDs, at: nowSeconds) }
        if let (tst, coordinate, accuracy, quiet) = placeFix {
            extraChange = trackPlaces(of: member, in: circleIDs) { places, circles, rules in
                places.observe(
                    member, in: circles, rules: rules, tst: tst, at: coordinate, accuracy: Double(accuracy), replayed: quiet)
            } || extraChange
        }
        return outcome == .changed || statusChange != nil || extraChange ? .changed : .unchanged
    }

    /// Keeps the receipt stamp of `member`'s newest report (the highest `seq`; a new epoch
    /// replaces the old), for the delivery counts in its view.
    func recordDelivery(_ stamp: ReportStamp, of member: MemberID) {
        if let known = state.deliveries[member], known.epoch == stamp.epoch, known.seq > stamp.seq { return }
        state.deliveries[member] = stamp
    }

    private static func mutate<R>(_ state: inout MemberState, _ body: (inout MemberState) -> R) -> R {
        body(&state)
    }

    /// Applies a device's region transition: updates its regions if the transition is the newest
    /// news about them, and (unless the broker replayed it as retained state) sends an `enter` or
    /// `leave` event to each of its circles. Returns whether the views' regions changed.
    private func applyTransition(
        event: String, region: String?, tst: Int, of member: MemberID, in circleIDs: [String], retained: Bool
    ) -> Bool {
        var changed = false
        if let region {
            changed = state.regions[member, default: ReportedRegions()].apply(event: event, region: region, tst: tst)
            changed = trackPlaces(of: member, in: circleIDs) { places, circles, rules in
                places.apply(member, in: circles, rules: rules, event: event, region: region, tst: tst, replayed: retained)
            } || changed
            let key = region.lowercased()
            let circles = circleIDs.compactMap { state.roster.circle(id: $0) }
            if circles.contains(where: { !$0.places.isEmpty }),
                !circles.contains(where: { $0.places.contains { $0.name.lowercased() == key } }),
                state.loggedOnce.isFirst("region.\(key)", of: member)
            {
                logger.notice(
                    "A region transition names no place of the member's circles: it stays the device's own region (enter/leave), not an arrival (logged once per member and region).",
                    metadata: ["whereabouts.member": "\(member)", "whereabouts.region": "\(region)"])
            }
        }
        if !retained {
            let kind: CircleEvent.Kind = event == "enter" ? .enter : .leave
            // The device's own region names are as telling as a position: only `exact` audiences get them.
            for id in circleIDs where level(of: member, in: id) == .exact {
                state.schedule.queue(CircleEvent(circle: id, user: member.user, device: member.device, event: kind, tst: tst, region: region))
            }
            logger.info("Member reported a region transition.", metadata: ["whereabouts.member": "\(member)", "whereabouts.event": "\(event)"])
            signalChange()
        }
        return changed
    }

    /// Runs `step` on `member`'s place tracker in each of its circles that has places, announces
    /// the arrivals and departures it decides (unless quiet), and brings the next deadline check
    /// forward to the next pending arrival. Returns whether a view changed.
    private func trackPlaces(
        of member: MemberID, in circleIDs: [String], _ step: (inout PlaceOccupancy, [Circle], PlaceRules) -> PlaceOccupancy.Update
    ) -> Bool {
        // Only circles with places; most have none, and then a fix costs no array and no tracker
        // (nor, when no owned circle has places, a lookup).
        guard state.roster.inCircleWithPlaces(member) else { return false }
        var circles: [Circle] = []
        for id in circleIDs {
            if let circle = state.roster.circle(id: id), !circle.places.isEmpty { circles.append(circle) }
        }
        guard !circles.isEmpty else { return false }
        let update = step(&state.places, circles, settings.placeRules)
        if let deadline = update.nextDeadline { state.schedule.checkStatus(by: deadline) }
        for (id, transitions) in update.transitions {
            _ = state.schedule.markDirty([id])
            announce(transitions, of: member, in: id)
        }
        return !update.transitions.isEmpty
    }

    /// What circle `circleID`'s audience sees of `member`.
    private func level(of member: MemberID, in circleID: String) -> PrivacyLevel {
        guard let circle = state.roster.circle(id: circleID), let entry = state.roster.member(member, inCircle: circleID) else {
            return .hidden
        }
        return circle.level(of: entry)
    }

    private func announce(_ transitions: [PlaceTransition], of member: MemberID, in circleID: String) {
        let shown = level(of: member, in: circleID) < .hidden
        for transition in transitions where !transition.replayed && shown {
            let kind: CircleEvent.Kind = transition.event == .enter ? .arrived : .departed
            let place = transition.place.name
            logger.info(
                "Member \(kind == .arrived ? "arrived at" : "left") a place.",
                metadata: ["whereabouts.member": "\(member)", "whereabouts.circle": "\(circleID)", "whereabouts.place": "\(place)"])
            state.schedule.queue(
                CircleEvent(
                    circle: circleID, user: member.user, device: member.device, event: kind,
                    tst: Int(transition.time.timeIntervalSince1970), place: place))
        }
        signalChange()
    }

    /// Counts the informational fields dropped from an accepted message of `member`, logging each
    /// field once per member.
    func countDropped(_ fields: [String], of member: MemberID, topic: String) {
        for field in fields {
            state.stats.droppedFields[field, default: 0] += 1
            metrics.droppedField(field)
            if state.loggedOnce.isFirst("field.\(field)", of: member) {
                logger.notice(
                    "Dropped an informational field that was out of range or of the wrong type; the rest of the message was used (logged once per member and field).",
                    metadata: ["whereabouts.topic": "\(topic)", "whereabouts.field": "\(field)"])
            }
        }
    }

    /// Counts and logs a rejected message: the first of each reason at info, the rest at debug
    /// (the rule for all rejected input), so one misbehaving client cannot flood the log.
    package func reject(_ reason: MessageRejectionReason, topic: String) {
        let isFirst = count(reason)
        logger.log(
            level: isFirst ? .info : .debug,
            "Rejected a message\(isFirst ? "; further rejections for this reason are logged at debug level" : "").",
            metadata: [
                "whereabouts.topic": "\(topic)", "whereabouts.reason": "\(reason.code)",
                "whereabouts.detail": "\(reason)",
            ])
    }

    /// Decrypts an OwnTracks encrypted message from `member` with the secret the circles file
    /// names for it. A missing secret and a failure are each logged once per member, at warning,
    /// never with the secret or the payload; a failure is counted as `undecryptable`.
    func decrypt(_ payload: some Collection<UInt8>, from member: MemberID) -> DecryptionKeys.Outcome {
        let outcome = state.keys.open(payload, from: member)
        switch outcome {
        case .plaintext:
            break
        case .noSecret:
            warnOnce(member, "Encrypted messages from this device are ignored: the circles file names no secretFile for it.",
                     reason: "encrypted")
        case .failed(let error):
            count(.undecryptable)
            warnOnce(member, "Rejected an encrypted message that does not decrypt with this device's secret.",
                     reason: "\(MessageRejectionReason.undecryptable.code): \(error.description)")
        }
        return outcome
    }

    /// Counts a rejection in the tally and the metric; returns whether it is the first of its reason.
    @discardableResult
    private func count(_ reason: MessageRejectionReason) -> Bool {
        metrics.ingest(outcome: "rejected", reason: reason.code)
        return state.stats.rejected.record(reason.code)
    }

    private func warnOnce(_ member: MemberID, _ message: Logger.Message, reason: String) {
        guard state.keys.shouldWarn(about: member) else { return }
        logger.warning(message, metadata: [
            "whereabouts.member": "\(member)", "whereabouts.reason": "\(reason)",
            "whereabouts.note": "logged once per device until the subscriber restarts; counted every time",
        ])
    }

    private func announce(_ status: MemberStatus, of member: MemberID, in circleIDs: [String], at now: Double) {
        let kind: CircleEvent.Kind
        switch status {
        case .online: kind = .online
        case .stationary: kind = .stationary
        case .overdue: kind = .overdue
        case .offline: kind = .offline
        case .stale: kind = .stale
        case .gone: kind = .gone
        case .unknown: return
        }
        logger.info("Member is \(status.rawValue).", metadata: ["whereabouts.member": "\(member)"])
        for id in circleIDs {
            state.schedule.queue(CircleEvent(circle: id, user: member.user, device: member.device, event: kind, tst: Int(now)))
        }
        state.statusDirty = true
        state.statusWork.signal()
        signalChange()
    }

    /// Marks circles as changed. A circle that becomes dirty wakes the publisher, which
    /// publishes it at once if its interval has passed, or sleeps until it has.
    private func markDirty(_ circleIDs: [String]) {
        if state.schedule.markDirty(circleIDs) { signalChange() }
    }

    /// Marks circles for publishing again (after a failed publish).
    package func invalidate(circleIDs: [String]) {
        for id in circleIDs where state.roster.circle(id: id) != nil {
            state.schedule.invalidate(id)
        }
    }

    /// Marks every circle for publishing again at once (after a publishing connection to a NATS
    /// node came back: the views that node acknowledged may not have been stored).
    package func republishAll() {
        for circle in state.roster.circles { state.schedule.invalidate(circle.id) }
        signalChange()
    }

    // MARK: Reload

    /// Replaces the circles with those of `file` that this shard owns, keeping the state of every
    /// device that stays tracked. Sends `joined`/`left` events per circle, marks changed circles
    /// for publishing, and queues removed circles for clearing.
    package func replaceCircles(_ file: CirclesFile, at now: Date = Date()) -> MembershipChange {
        let next = CircleRoster(file.circles.filter { shard.owns(circleID: $0.id) })
        let change = state.roster.changes(to: next, at: Int(now.timeIntervalSince1970))
        state.keys.replace(with: file.secrets)
        for event in change.events { state.schedule.queue(event) }
        _ = state.schedule.markDirty(change.changedCircles)
        for id in change.removedCircles { state.schedule.remove(id) }
        for member in change.removedMembers {
            state.deliveries[member] = nil
            state.members[member] = nil
            state.cards[member] = nil
            state.regions[member] = nil
            state.places.forget(member)
        }
        state.places.keepUnchanged(in: next)
        state.roster = next
        logger.info(
            "Loaded the circles.",
            metadata: [
                "whereabouts.circles": "\(next.circles.count)", "whereabouts.added": "\(change.addedMembers.count)",
                "whereabouts.removed": "\(change.removedMembers.count)",
            ])
        signalChange()
        return MembershipChange(added: change.addedMembers, removed: change.removedMembers)
    }

    // MARK: Publishing

    /// Collects what is due at `now`: views of changed circles whose last collection is at least
    /// ``viewInterval`` ago, pending events (members that turned stale are detected here), and
    /// removed circles. Collected views also go to every ``updates()`` sequence.
    package func collectDue(at now: Date = Date()) -> PublishBatch {
        let nowSeconds = now.timeIntervalSince1970
        state.change.reset()
        if nowSeconds >= state.schedule.nextStatusCheck { checkDeadlines(at: nowSeconds) }
        let roster = state.roster
        let due = state.schedule.takeDue(at: nowSeconds, viewInterval: viewInterval, owns: { roster.circle(id: $0) != nil })
        var batch = PublishBatch()
        batch.views = due.circles.compactMap { id in roster.circle(id: id).map { buildView($0, at: nowSeconds) } }
        batch.events = due.events
        batch.removedCircles = due.removedCircles
        batch.ownTracksCircles = roster.ownTracksCircles
        batch.nextDeadline = due.next
        state.stats.viewsBuilt += batch.views.count
        state.stats.events += batch.events.count
        for view in batch.views { state.subscribers.yield(view) }
        for event in batch.events { state.eventSubscribers.yield(event) }
        return batch
    }

    /// Suspends until something may have changed what is due (a circle became dirty, an event),
    /// returning at once if that happened since the last ``collectDue(at:)``.
    /// Returns early when the calling task is cancelled.
    package func waitForChanges() async {
        await wait(for: .viewPublisher)
    }

    /// The tasks that wait for the store, each on its own ``ChangeSignal``.
    private enum Waiter: Sendable {
        /// ``waitForChanges()``: `State.change`.
        case viewPublisher
        /// ``waitForStatusWork()``: `State.statusWork`.
        case statusWriter
    }

    private func withSignal<Result>(of waiter: Waiter, _ body: (inout ChangeSignal) -> Result) -> Result {
        switch waiter {
        case .viewPublisher: body(&state.change)
        case .statusWriter: body(&state.statusWork)
        }
    }

    /// Suspends until `waiter`'s signal is set, returning at once if it is, or early when the
    /// calling task is cancelled.
    private func wait(for waiter: Waiter) async {
        if withSignal(of: waiter, \.isSignalled) { return }
        let id = withSignal(of: waiter) { $0.makeWaiterID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if Task.isCancelled || withSignal(of: waiter, \.isSignalled) {
                    continuation.resume()
                } else {
                    withSignal(of: waiter) { $0.park(continuation, id: id) }
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id, of: waiter) }
        }
    }

    private func cancelWaiter(_ id: UInt64, of waiter: Waiter) {
        withSignal(of: waiter) { $0.cancel(id) }
    }

    private func signalChange() {
        state.change.signal()
    }

    /// Finds members whose silence passed the stale timeout and arrivals whose dwell time passed,
    /// announces them, and recomputes the earliest next deadline.
    private func checkDeadlines(at now: Double) {
        var next = Double.infinity
        for (member, var memberState) in state.members {
            if let change = memberState.takeStatusChange(at: now, settings: settings) {
                state.members[member] = memberState
                let circleIDs = state.roster.circleIDs(of: member) ?? []
                markDirty(circleIDs)
                announce(change, of: member, in: circleIDs, at: now)
            }
            if let deadline = memberState.nextStatusChange(after: now, settings: settings) {
                next = min(next, deadline)
            }
        }
        let arrivals = state.places.advance(to: now)
        for (member, id, transitions) in arrivals.transitions {
            _ = state.schedule.markDirty([id])
            announce(transitions, of: member, in: id)
        }
        if let later = arrivals.next { next = min(next, later) }
        state.schedule.setNextStatusCheck(next)
    }

    // MARK: Status file

    /// Every tracked member's status if any changed since the last call, else `nil`.
    func takeStatusSnapshot() -> [StatusRecord]? {
        guard state.statusDirty else { return nil }
        state.statusDirty = false
        return statusSnapshot()
    }

    /// Marks the statuses as not yet saved (a write failed), so the next snapshot is taken again.
    func markStatusUnsaved() {
        state.statusDirty = true
        state.statusWork.signal()
    }

    /// A report was taken in that only a status file write makes durable (receipts without a
    /// history, docs/receipts.md): wakes the status file's writer.
    func requestStatusWrite() {
        state.statusWork.signal()
    }

    /// Suspends until the status file has work (a status changed, a write failed and is due
    /// again, or ``requestStatusWrite()``), returning at once if it has; returns early when the
    /// calling task is cancelled. Takes the work: the next call waits for new work. Call it
    /// *before* ``ReceiptLedger/beginStatusSave()``, so that a report noted after it wakes the
    /// next call.
    func waitForStatusWork() async {
        await wait(for: .statusWriter)
        state.statusWork.reset()
    }

    /// Every tracked member's status that a message set, sorted by member.
    func statusSnapshot() -> [StatusRecord] {
        state.members.compactMap { $0.value.record(of: $0.key) }.sorted { ($0.user, $0.device) < ($1.user, $1.device) }
    }

    /// Restores statuses saved by an earlier run, for members still tracked, before ingest
    /// starts. No events go out for them: they were announced when they happened.
    /// Returns how many members were restored.
    @discardableResult
    func restoreStatus(_ records: [StatusRecord], at now: Date = Date()) -> Int {
        var restored = 0
        for record in records where record.status != .stale {
            let member = MemberID(user: record.user, device: record.device)
            guard state.roster.tracks(member), record.eventTime.isFinite else { continue }
            var memberState = state.members[member] ?? MemberState()
            memberState.restore(record, at: now.timeIntervalSince1970, settings: settings)
            state.members[member] = memberState
            if let deadline = memberState.nextStatusChange(after: now.timeIntervalSince1970, settings: settings) {
                state.schedule.checkStatus(by: deadline)
            }
            restored += 1
        }
        _ = state.schedule.markDirty(state.roster.circles.map(\.id))
        return restored
    }
}

/// Which (member, key) pairs were already logged, for messages logged once per member
/// (ignored types, dropped fields).
struct OnceLog: Sendable {
    private var seen: Set<String> = []

    /// Whether `key` is new for `member`, recording it.
    mutating func isFirst(_ key: String, of member: MemberID) -> Bool {
        seen.insert("\(member.user)/\(member.device)\u{0}\(key)").inserted
    }
}
