import Foundation

/// What ``Outbox/append(topic:payload:tst:createdAt:)`` did.
public struct OutboxAppendResult: Sendable, Hashable {
    /// The id of the new entry.
    public var id: Int64
    /// How many of the oldest entries were dropped to stay within the cap (usually 0).
    public var dropped: Int
    /// How many entries the outbox holds after the append.
    public var depth: Int
}
