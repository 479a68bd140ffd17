import Foundation

/// What ``Outbox/append(topic:payload:tst:createdAt:)`` did.
package struct OutboxAppendResult: Sendable, Hashable {
    /// The id of the new entry.
    package var id: Int64
    /// How many of the oldest entries were dropped to stay within the cap (usually 0).
    package var dropped: Int
    /// How many entries the outbox holds after the append.
    package var depth: Int
}
