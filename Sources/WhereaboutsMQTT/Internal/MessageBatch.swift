#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import WhereaboutsCore

/// One iterator's current batch. A class so that messages taken from the channel but not yet
/// returned go back to the channel when the iterator is dropped (a `for await` left with `break`).
/// Not `Sendable`: it belongs to one iterator, which is used by one task at a time.
final class MessageBatch {
    private let registration: MessageChannelRegistration
    private var messages: [MQTTMessage] = []
    private var index = 0
    /// Set once `next()` returned `nil` (ended or cancelled): it keeps returning `nil`.
    private var ended = false

    init(registration: MessageChannelRegistration) { self.registration = registration }

    deinit {
        if index < messages.count { registration.channel.putBack(messages[index...]) }
    }

    /// The next message: from the batch, else the whole buffer taken in one go, else after
    /// waiting. `nil` when the sequence has ended or the waiting task was cancelled.
    func next(isolation actor: isolated (any Actor)?) async -> MQTTMessage? {
        if index < messages.count {
            defer { index += 1 }
            return messages[index]
        }
        if ended { return nil }
        // Keep a modest array for the channel to refill; give a huge one (after a burst) back.
        messages.removeAll(keepingCapacity: messages.capacity <= 4096)
        index = 0
        let channel = registration.channel
        while true {
            switch channel.take(into: &messages) {
            case .messages:
                index = 1
                return messages[0]
            case .finished:
                ended = true
                return nil
            case .empty:
                if await !channel.waitForMessages(isolation: actor) {
                    ended = true
                    return nil
                }
            }
        }
    }
}
