/// What the drainer does with the outbox rows of one publish window once every publish in it ended.
///
/// Acknowledgements may complete out of order, so exactly the acknowledged rows are removed, with
/// one exception: when an older entry of the window failed, an acknowledged *retained* entry (the
/// newest) is kept and marked retried, so that after the reconnect it goes out again after the
/// failed one and the retained message stays the newest fix, even across a crash.
struct WindowSettlement: Sendable, Equatable {
    /// Acknowledged rows to delete.
    var remove: [Int64] = []
    /// Rows that stay and are sent again as backlog.
    var retry: [Int64] = []

    /// Settles `sent`, given in the order the entries were handed to MQTT.
    init(_ sent: [(id: Int64, retained: Bool, acknowledged: Bool)]) {
        var earlierFailed = false
        for item in sent {
            if !item.acknowledged {
                retry.append(item.id)
                earlierFailed = true
            } else if item.retained && earlierFailed {
                retry.append(item.id)
            } else {
                remove.append(item.id)
            }
        }
    }

    /// Whether any publish of the window failed.
    var failed: Bool { !retry.isEmpty }
}
