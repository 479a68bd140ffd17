#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension MQTTClient: BrokerConnection {
    /// Subscribes to every filter at the same `qos`; see `subscribe(to:timeout:)`.
    public func subscribe(to filters: [String], qos: QoS, timeout: Duration? = nil) async throws {
        try await subscribe(to: filters.map { (filter: $0, qos: qos) }, timeout: timeout)
    }

    /// When the broker accepted the current connection, or `nil` while not connected.
    public func connectedSince() async -> Date? {
        hub.connectedSince
    }

    /// Waits for the next `connected` state update, at most `timeout`; returns whether connected.
    public func waitUntilConnected(timeout: Duration) async -> Bool {
        if state.isConnected { return true }
        let updates = stateUpdates  // starts with the current state, so no change is missed
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await state in updates where state.isConnected { return true }
                return false  // the client is gone, or the task was cancelled
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// How many QoS 1/2 publishes whose caller gave up (timed out or cancelled while connected)
    /// libmosquitto still holds on the current connection, waiting for their acknowledgement;
    /// each leaves the count when its late acknowledgement arrives or the connection ends.
    public func publishesHeldAfterGiveUp() async -> Int {
        (try? activeSession())?.publishesHeldAfterGiveUp ?? 0
    }

    /// Whether a connection since the last call started a new broker session (`connected` with
    /// `sessionPresent` false); clears it.
    public func takeFreshSession() async -> Bool {
        hub.takeFreshSession()
    }
}
