/// The open ``CircleViewUpdates`` sequences, each fed every collected view.
struct ViewSubscribers: Sendable {
    private var continuations: [UInt64: AsyncStream<CircleView>.Continuation] = [:]
    private var nextID: UInt64 = 0

    /// Adds a sequence's continuation; returns its id for ``remove(_:)``.
    mutating func add(_ continuation: AsyncStream<CircleView>.Continuation) -> UInt64 {
        defer { nextID += 1 }
        continuations[nextID] = continuation
        return nextID
    }

    /// Forgets the sequence `id` (it was terminated).
    mutating func remove(_ id: UInt64) {
        continuations[id] = nil
    }

    /// Hands `view` to every open sequence.
    func yield(_ view: CircleView) {
        for continuation in continuations.values { continuation.yield(view) }
    }

    /// How many sequences are open.
    var count: Int { continuations.count }
}
