import Foundation
import Logging
import WhereaboutsMQTT

/// Publishes what the store says is due: views retained, events not retained, and an empty
/// retained message for each removed circle; for circles that ask for it, their OwnTracks tree
/// (``OwnTracksTree``). Runs until cancelled.
struct ViewPublisher<Connection: BrokerConnection> {
    let store: CircleViewStore
    let connection: Connection
    let configuration: SubscriberConfiguration
    let logger: Logger

    func run() async {
        let encoder = JSONEncoder()
        // Sorted keys: the same view always encodes to the same bytes, `_type` first.
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var tree = OwnTracksTree(viewPrefix: configuration.viewPrefix)
        while !Task.isCancelled {
            let batch = await store.collectDue(at: Date())
            // Circles without an OwnTracks tree: their views go out together (``sendTogether``).
            await sendTogether(batch.views.filter { !batch.ownTracksCircles.contains($0.circle.id) }, encoder: encoder)
            for view in batch.views where batch.ownTracksCircles.contains(view.circle.id) {
                let sent = await send(to: configuration.viewTopic(view.circle.id), retain: true, circle: view.circle.id, qos: configuration.viewQoS) {
                    try encoder.encode(view)
                }
                if sent { store.metrics.viewsPublished(1) }
                let store = self.store
                let messages = await tree.update(with: view) { member in
                    await store.face(circle: view.circle.id, user: member.user, device: member.device)?.data
                }
                if await !send(messages, circle: view.circle.id) { tree.invalidate(circle: view.circle.id) }
            }
            for event in batch.events {
                let sent = await send(to: configuration.eventsTopic(event.circle), retain: false, circle: event.circle) {
                    try encoder.encode(event)
                }
                if sent { store.metrics.event(event.event.rawValue) }
                if batch.ownTracksCircles.contains(event.circle), let transition = tree.transition(for: event) {
                    await send([transition], circle: event.circle)
                }
            }
            for id in batch.removedCircles {
                await send(to: configuration.viewTopic(id), retain: true, circle: id, qos: configuration.viewQoS) { Data() }
            }
            // Trees of circles removed, moved to another shard or no longer asking for one.
            for id in tree.circles where !batch.ownTracksCircles.contains(id) {
                await send(tree.clear(circle: id), circle: id)
            }
            await waitUntil(batch.nextDeadline)
        }
    }

    /// How many retained views are on their way at once (``sendTogether``).
    static var viewWindow: Int { 16 }

    /// Publishes the retained views of `views` (each of a different circle), up to
    /// ``viewWindow`` at a time. One after another, each waiting for its PUBACK, they would cap a
    /// shard at one view per round trip; on NATS the PUBACK of a retained QoS 1 message waits for
    /// two replicated stores (docs/cluster.md), and a shard of 5,000 circles fell seconds behind.
    /// A view that fails is handled as in ``send(to:retain:circle:payload:)``: published again.
    private func sendTogether(_ views: [CircleView], encoder: JSONEncoder) async {
        var encoded: [(topic: String, circle: String, payload: Data)] = []
        encoded.reserveCapacity(views.count)
        for view in views {
            let topic = configuration.viewTopic(view.circle.id)
            do {
                encoded.append((topic, view.circle.id, try encoder.encode(view)))
            } catch {
                // As send(to:) does with a payload it cannot make.
                await send(to: topic, retain: true, circle: view.circle.id) { throw error }
            }
        }
        var published = 0
        var next = encoded.startIndex
        await withTaskGroup(of: Bool.self) { group in
            func startNext() {
                guard next < encoded.endIndex else { return }
                let view = encoded[next]
                next += 1
                group.addTask { await send(to: view.topic, retain: true, circle: view.circle, qos: configuration.viewQoS) { view.payload } }
            }
            for _ in 0..<Self.viewWindow { startNext() }
            for await sent in group {
                if sent { published += 1 }
                startNext()
            }
        }
        store.metrics.viewsPublished(published)
    }

    /// Publishes a tree's messages in order; `false` if any failed (the circle's view is then
    /// published again, and the tree with it).
    @discardableResult
    private func send(_ messages: [OwnTracksTree.Message], circle: String) async -> Bool {
        var allSent = true
        for message in messages {
            let sent = await send(to: message.topic, retain: message.retain, circle: circle) { message.payload }
            allSent = allSent && sent
        }
        return allSent
    }

    @discardableResult
    private func send(to topic: String, retain: Bool, circle: String, qos: QoS? = nil, payload: () throws -> Data) async -> Bool {
        do {
            try await connection.publish(to: topic, payload: try payload(), qos: qos ?? configuration.qos, retain: retain, timeout: configuration.publishTimeout)
            return true
        } catch {
            store.metrics.publishFailed()
            logger.warning(
                "Could not publish; the view will be published again.",
                metadata: ["whereabouts.topic": "\(topic)", "whereabouts.error": "\(error)"])
            if retain { await store.invalidate(circleIDs: [circle]) }
            return false
        }
    }

    /// Waits for a change that may be due at once, or until `deadline`, whichever comes first.
    private func waitUntil(_ deadline: Date?) async {
        let store = self.store
        let seconds = min(deadline.map { $0.timeIntervalSinceNow } ?? 3600, 3600)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await store.waitForChanges() }
            group.addTask { try? await Task.sleep(for: .seconds(max(0, seconds))) }
            await group.next()
            group.cancelAll()
        }
    }
}
