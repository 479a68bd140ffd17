import Foundation
import NIOCore
import Subscriber
import Logging
import ServiceLifecycle
import Synchronization

/// Fans circle views out to every WebSocket client from one subscription to the source.
///
/// Each client used to take its own subscription, snapshot and JSON encoding of every view: with
/// 200 clients the first view took 3 to 8 s and most updates were dropped (issue 9). Here each
/// published view is encoded once and kept as its circle's latest. Each client has a mailbox that
/// holds at most one unsent view per circle, replaced when a newer one arrives: a slow client
/// skips intermediate views but always ends with the newest, and costs at most one shared buffer
/// per circle however far behind it is. A new client is served from the latest views at once,
/// without touching the source. Measured in BENCHMARKS.md ("Dashboard: WebSocket fan-out").
///
/// Events (the same JSON as on the circles' events topic) are encoded once too, and queued per
/// client in order, none replacing another (at most ``maxQueuedEvents``); they go out before the
/// views waiting with them.
///
/// Runs as a service of the dashboard's application: it subscribes to the source, seeds the
/// latest views, and when it ends (graceful shutdown) every client's push loop ends too.
final class ViewBroadcaster: Service, Sendable {
    /// Identifies one registered client.
    typealias ClientID = UInt64

    /// One client's mailbox.
    private struct Client {
        /// The circles it watches, or `nil` for every circle.
        let circles: Set<String>?
        /// The newest unsent view of each circle, and the order in which circles became pending.
        var pending: [String: EncodedView] = [:]
        var order: [String] = []
        /// Events not yet sent, oldest first: every one is sent, none replaces another, up to
        /// ``ViewBroadcaster/maxQueuedEvents`` (a client that reads nothing loses the oldest).
        var events: [ByteBuffer] = []
        /// The push loop, when it waits for a view.
        var waiter: CheckedContinuation<[ByteBuffer]?, Never>?

        func wants(_ circleID: String) -> Bool { circles?.contains(circleID) ?? true }

        /// Hands `view` to a waiting push loop (returned, to resume outside the lock) or keeps it
        /// as the circle's pending view, replacing an older one.
        mutating func deliver(_ view: EncodedView) -> CheckedContinuation<[ByteBuffer]?, Never>? {
            if let waiter {
                // A waiting loop has nothing pending: the view goes to it directly.
                self.waiter = nil
                return waiter
            }
            if pending.updateValue(view, forKey: view.circleID) == nil { order.append(view.circleID) }
            return nil
        }

        /// Takes every pending view, in the order their circles became pending.
        /// Queues an event, unless a loop waits: then it goes to that loop directly. Returns the
        /// waiting loop, and whether the oldest queued event had to make room.
        mutating func deliver(event json: ByteBuffer, limit: Int) -> (waiter: CheckedContinuation<[ByteBuffer]?, Never>?, dropped: Bool) {
            if let waiter {
                self.waiter = nil
                return (waiter, false)
            }
            events.append(json)
            guard events.count > limit else { return (nil, false) }
            events.removeFirst(events.count - limit)
            return (nil, true)
        }

        /// What is waiting, as the frames to send: events first (in order), then the newest
        /// view of each circle.
        mutating func takePending() -> [ByteBuffer] {
            defer {
                pending.removeAll(keepingCapacity: false)
                order.removeAll(keepingCapacity: false)
                events.removeAll(keepingCapacity: false)
            }
            return events + order.compactMap { pending[$0]?.json }
        }
    }

    private enum Phase { case open, closed }

    private struct State {
        var phase = Phase.open
        var latest: [String: EncodedView] = [:]
        var clients: [ClientID: Client] = [:]
        var nextID: ClientID = 0
        /// Views being generated anew for new clients, one task per circle: clients that connect
        /// at once wait for the same generation instead of each asking the source.
        var refreshing: [String: Task<Void, Never>] = [:]
        /// When the last client left (the memory release waits for departures to pause).
        var lastDeparture = ContinuousClock.now
    }

    private let source: CircleViewStore
    private let logger: Logger
    /// How long after a departure wave freed memory is given back a second time.
    private let lateMemoryRelease: Duration
    /// Guards every client's mailbox and the latest views; held only for dictionary updates.
    private let state = Mutex(State())
    /// One element per departure wave: the trimming loop gives freed memory back afterwards.
    private let departures: AsyncStream<Void>
    private let departureSink: AsyncStream<Void>.Continuation

    /// Creates the broadcaster; nothing is subscribed until ``run()``.
    ///
    /// - Parameter lateMemoryRelease: How long after clients leave their last memory is free: the
    ///   WebSocket ping and close timers of a departed connection hold its task until they would
    ///   have fired, however early the connection ended.
    init(source: CircleViewStore, lateMemoryRelease: Duration = .seconds(32), logger: Logger) {
        self.source = source
        self.lateMemoryRelease = lateMemoryRelease
        self.logger = logger
        (departures, departureSink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Subscribes to the source, seeds every circle's latest view, and forwards views until
    /// graceful shutdown; then ends every client's push loop.
    func run() async throws {
        let updates = await source.updates()
        let events = await source.eventUpdates()
        for view in await source.views() { offer(view) }
        defer { close() }
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await self.releaseMemoryAfterDepartures() }
            group.addTask { for try await event in events { self.offer(event) } }
            for try await view in updates.cancelOnGracefulShutdown() { offer(view) }
            group.cancelAll()
        }
    }

    // MARK: Clients

    /// Registers a client of `circles` (or of every circle) with the latest view of each of its
    /// circles already in its mailbox; `nil` once the broadcaster has closed.
    func register(circles: Set<String>?) async -> ClientID? {
        let circleIDs = await source.circles().map(\.id).filter { circles?.contains($0) ?? true }
        // A page extrapolates from a view's `generatedAt` as if it arrived when generated, so a
        // latest view older than ``maxAgeForNewClients`` is generated anew for the new client: one generation
        // per circle at a time, however many clients connect at once (500 clients of 20 circles
        // asked the source up to 1,000 times in the same second before).
        let now = Date().timeIntervalSince1970
        let refreshes = state.withLock { state -> [Task<Void, Never>] in
            circleIDs.compactMap { id -> Task<Void, Never>? in
                if let fresh = state.latest[id], now - fresh.generatedAt <= Self.maxAgeForNewClients { return nil }
                if let running = state.refreshing[id] { return running }
                let task = Task { [self] in
                    if let view = await source.view(id: id) { offer(view) }
                    _ = self.state.withLock { $0.refreshing.removeValue(forKey: id) }
                }
                state.refreshing[id] = task
                return task
            }
        }
        for refresh in refreshes { await refresh.value }
        return state.withLock { state -> ClientID? in
            guard state.phase == .open else { return nil }
            let id = state.nextID
            state.nextID += 1
            var client = Client(circles: circles)
            for circleID in circleIDs {
                if let view = state.latest[circleID] { _ = client.deliver(view) }
            }
            state.clients[id] = client
            return id
        }
    }

    /// Removes a client; its push loop, if waiting, gets `nil`.
    func unregister(_ id: ClientID) {
        let waiter = state.withLock { state in
            state.lastDeparture = .now
            return state.clients.removeValue(forKey: id)?.waiter
        }
        waiter?.resume(returning: nil)
        departureSink.yield()
    }

    /// The client's pending views, oldest circle first, waiting until there is at least one;
    /// `nil` when the client was removed, the broadcaster closed, or the task was cancelled.
    func next(for id: ClientID) async -> [ByteBuffer]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[ByteBuffer]?, Never>) in
                let now = state.withLock { state -> MailboxAnswer in
                    guard state.phase == .open, !Task.isCancelled, var client = state.clients[id] else { return .answer(nil) }
                    let batch = client.takePending()
                    if batch.isEmpty { client.waiter = continuation }
                    state.clients[id] = client
                    return batch.isEmpty ? .wait : .answer(batch)
                }
                if case .answer(let batch) = now { continuation.resume(returning: batch) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<[ByteBuffer]?, Never>? in
                defer { state.clients[id]?.waiter = nil }
                return state.clients[id]?.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    /// How old, in seconds, a cached view may be when it is a new client's first: the page glides
    /// members on from the view's `generatedAt` as if the view had just arrived, so an older view
    /// would show them that much behind until the next one (a 1 s limit put a fast member 4 m
    /// behind in a browser test).
    static var maxAgeForNewClients: Double { 0.25 }

    /// Whether circle `id` exists: from the latest views, else asking the source once.
    func hasCircle(_ id: String) async -> Bool {
        if state.withLock({ $0.latest[id] != nil }) { return true }
        guard let view = await source.view(id: id) else { return false }
        offer(view)
        return true
    }

    /// How many clients are registered (for tests and logs).
    var clientCount: Int {
        state.withLock { $0.clients.count }
    }

    // MARK: Views

    /// Encodes `view` once and, if it is its circle's newest, hands it to every client of that
    /// circle.
    private func offer(_ view: CircleView) {
        let encoded: EncodedView
        do {
            encoded = try EncodedView(view)
        } catch {
            logger.error("A circle view could not be encoded for the dashboard.", metadata: ["whereabouts.circle": "\(view.circle.id)", "whereabouts.error": "\(error)"])
            return
        }
        let woken = state.withLock { state -> [CheckedContinuation<[ByteBuffer]?, Never>] in
            if let current = state.latest[encoded.circleID], current.generatedAt >= encoded.generatedAt { return [] }
            state.latest[encoded.circleID] = encoded
            var woken: [CheckedContinuation<[ByteBuffer]?, Never>] = []
            for index in state.clients.indices where state.clients.values[index].wants(encoded.circleID) {
                if let waiter = state.clients.values[index].deliver(encoded) { woken.append(waiter) }
            }
            return woken
        }
        for waiter in woken { waiter.resume(returning: [encoded.json]) }
    }

    /// The most events kept for one client that does not read; the oldest go first.
    static var maxQueuedEvents: Int { 256 }

    /// Encodes an event once and hands it to every client of its circle.
    private func offer(_ event: CircleEvent) {
        let json: ByteBuffer
        do {
            json = ByteBuffer(bytes: try JSONBody.data(event))
        } catch {
            logger.error("A circle event could not be encoded for the dashboard.", metadata: ["whereabouts.circle": "\(event.circle)", "whereabouts.error": "\(error)"])
            return
        }
        let (woken, dropped) = state.withLock { state -> ([CheckedContinuation<[ByteBuffer]?, Never>], Int) in
            guard state.phase == .open else { return ([], 0) }
            var woken: [CheckedContinuation<[ByteBuffer]?, Never>] = []
            var dropped = 0
            for index in state.clients.indices where state.clients.values[index].wants(event.circle) {
                let delivery = state.clients.values[index].deliver(event: json, limit: Self.maxQueuedEvents)
                if let waiter = delivery.waiter { woken.append(waiter) }
                if delivery.dropped { dropped += 1 }
            }
            return (woken, dropped)
        }
        for waiter in woken { waiter.resume(returning: [json]) }
        if dropped > 0 {
            logger.debug("Dropped the oldest queued event of WebSocket clients that do not read.", metadata: ["whereabouts.clients": "\(dropped)"])
        }
    }

    private func close() {
        let waiters = state.withLock { state in
            state.phase = .closed
            var waiters: [CheckedContinuation<[ByteBuffer]?, Never>] = []
            for index in state.clients.indices {
                if let waiter = state.clients.values[index].waiter { waiters.append(waiter) }
                state.clients.values[index].waiter = nil
            }
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }

    /// After clients leave, gives the memory their connections used back to the system (see
    /// ``MemoryRelease``): once departures pause for a second (one release per wave), and again
    /// when none came for ``lateMemoryRelease``, once the departed connections' timers are gone.
    /// Each waits at most five times its pause, so clients that keep coming and going do not
    /// postpone it for ever.
    /// With only the first release, 1,800 connections opened and closed left resident memory at
    /// 99 MB (38.9 MB before); a release 30 s later brought it to 49.8 MB (BENCHMARKS.md,
    /// "Dashboard: WebSocket fan-out").
    private func releaseMemoryAfterDepartures() async {
        for await _ in departures {
            for (pause, what) in [(Duration.seconds(1), "WebSocket clients left"), (lateMemoryRelease, "the departed clients' timers ended")] {
                do { try await waitForDeparturesToPause(for: pause, atMost: pause * 5) } catch { return }
                let released = MemoryRelease.releaseFreeMemory()
                logger.debug("Released free memory: \(what).", metadata: ["whereabouts.released": "\(released)"])
            }
        }
    }

    /// Returns once no client has left for `pause`, or after `limit` at the latest.
    private func waitForDeparturesToPause(for pause: Duration, atMost limit: Duration) async throws {
        let deadline = ContinuousClock.now + limit
        while true {
            let last = state.withLock { $0.lastDeparture }
            let wake = min(last + pause, deadline)
            try await Task.sleep(until: wake)
            if wake == deadline || state.withLock({ $0.lastDeparture }) == last { return }
        }
    }
}

extension ViewBroadcaster {
    /// What a push loop's request for views finds: nothing yet (it waits), or an answer.
    private enum MailboxAnswer {
        case wait
        case answer([ByteBuffer]?)
    }
}
