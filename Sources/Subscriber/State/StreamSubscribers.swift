/// The open update sequences of one kind (``CircleViewUpdates``, ``CircleEventUpdates``), each
/// fed every collected element.
struct StreamSubscribers<Element: Sendable>: Sendable {
    private var continuations: [UInt64: AsyncStream<Element>.Continuation] = [:]
    private var nextID: UInt64 = 0

    /// Adds a sequence's continuation; returns its id for ``remove(_:)``.
    mutating func add(_ continuation: AsyncStream<Element>.Continuation) -> UInt64 {
        defer { nextID += 1 }
        continuations[nextID] = continuation
        return nextID
    }

    /// Forgets the sequence `id` (it was terminated).
    mutating func remove(_ id: UInt64) {
        continuations[id] = nil
    }

    /// Hands `element` to every open sequence.
    func yield(_ element: Element) {
        for continuation in continuations.values { continuation.yield(element) }
    }

    /// How many sequences are open.
    var count: Int { continuations.count }
}
