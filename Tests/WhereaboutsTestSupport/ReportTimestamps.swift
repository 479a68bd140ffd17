import Foundation
import Synchronization
internal import WhereaboutsCore
import WhereaboutsMQTT

/// Connects a client with `configuration` (the persistent session of a subscriber that was
/// offline), collects the `tst` of every location that arrives on `topic` until all of
/// `expected` have or `timeout` has passed, disconnects, and returns the ones that arrived: what
/// the broker had queued for the session. Throws only when the client cannot connect.
public func queuedLocationTimestamps(
    on topic: String, configuration: MQTTConfiguration, expecting expected: Set<Int>, timeout: Duration
) async throws -> Set<Int> {
    let client = MQTTClient(configuration: configuration, logger: .test("sub"))
    let messages = client.messages
    try await client.connect()
    let arrived = Mutex(Set<Int>())
    let reader = Task {
        for await message in messages where message.topic == topic {
            if let tst = try? JSONDecoder().decode(LocationMessage.self, from: message.payload).tst {
                arrived.withLock { _ = $0.insert(tst) }
            }
        }
    }
    try? await waitUntil("every expected location on \(topic)", timeout: timeout) {
        arrived.withLock { expected.isSubset(of: $0) }
    }
    reader.cancel()
    await client.disconnect()
    return arrived.withLock { $0 }
}

/// The `tst` of every line of `log` holding `text`, read from its `whereabouts.tst=` metadata
/// (as `whereabouts-pub` logs "Report committed.").
public func loggedTimestamps(in log: String, of text: String) -> Set<Int> {
    Set(log.split(separator: "\n").filter { $0.contains(text) }.compactMap { line in
        guard let range = line.range(of: "whereabouts.tst=") else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    })
}
