/// Operations waiting for their acknowledgement, keyed by libmosquitto message id.
///
/// The acknowledgement can arrive on libmosquitto's thread before `mosquitto_publish` has even
/// returned the id to the caller. So an acknowledgement for an id nobody waits for is kept as an
/// *early* acknowledgement while some call is between "C call started" and "waiter registered";
/// the caller claims it right after the C call returns. Ids whose caller gave up (timeout,
/// cancellation, "no connection" with the message still queued) are *abandoned*: their late
/// acknowledgement is dropped instead of being mistaken for an early one. Not thread-safe: the
/// owning session guards it with its lock.
struct AckTable {
    struct Waiter {
        /// Unchecked: every waiter leaves this table exactly once (acknowledged, expired,
        /// cancelled, dropped or removed), and whoever removes it resumes it; a checked
        /// continuation would add an allocation to every operation.
        let continuation: UnsafeContinuation<Ack, any Error>
        let operation: MQTTOperation
        let timeout: Duration
        let deadline: ContinuousClock.Instant
        /// Whether libmosquitto still holds the message if the caller gives up (QoS > 0 publish).
        let stillQueuedOnGiveUp: Bool
        /// The operation's number in its session (`MosquittoSession.perform`): how its task's
        /// cancellation finds it without knowing the message id.
        var serial: UInt64 = 0
    }

    private(set) var waiters: [Int32: Waiter] = [:]
    private var early: [Int32: Ack] = [:]
    private var abandoned: Set<Int32> = []
    /// The abandoned ids of QoS > 0 publishes whose caller gave up (timeout, cancellation) while
    /// connected: libmosquitto still holds the message and sends it (again) on this connection,
    /// so until its PUBACK comes or the connection ends, a caller that publishes the same
    /// content again would put a copy beside it.
    private(set) var held: Set<Int32> = []
    private(set) var callsInProgress = 0
    /// No later than the earliest deadline of a waiting operation (`nil` when none waits): when
    /// the session thread must wake to expire one at the latest. It may be earlier than the real
    /// earliest after an acknowledgement removed that waiter; ``expire(now:)`` then recomputes it.
    private(set) var earliestDeadline: ContinuousClock.Instant?

    /// A C call that may produce an acknowledgement is about to start.
    mutating func beginCall() { callsInProgress += 1 }

    /// That C call has returned and its outcome is registered (or failed).
    mutating func endCall() {
        callsInProgress -= 1
        // Every early acknowledgement belongs to a call in progress and has been claimed by now;
        // anything left is stale and must not be matched to a future id.
        if callsInProgress == 0 && !early.isEmpty { early.removeAll() }
    }

    /// Records an acknowledgement from libmosquitto. Returns the waiter to resume, if any.
    mutating func acknowledge(_ mid: Int32, _ ack: Ack) -> Waiter? {
        if let waiter = waiters.removeValue(forKey: mid) {
            // The last waiter answered: no wake-up for its deadline (the usual idle case).
            if waiters.isEmpty { earliestDeadline = nil }
            return waiter
        }
        if abandoned.remove(mid) != nil {
            held.remove(mid)
            return nil
        }
        if callsInProgress > 0 { early[mid] = ack }
        return nil
    }

    /// Registers a waiter for `mid` right after the C call returned it. Returns the early
    /// acknowledgement instead when it has already arrived (then nothing is registered).
    mutating func register(_ mid: Int32, _ waiter: Waiter) -> Ack? {
        if let ack = early.removeValue(forKey: mid) { return ack }
        abandoned.remove(mid)
        held.remove(mid)
        waiters[mid] = waiter
        if earliestDeadline.map({ waiter.deadline < $0 }) ?? true { earliestDeadline = waiter.deadline }
        return nil
    }

    /// Marks `mid` as given up by its caller: a later acknowledgement for it is dropped.
    mutating func abandon(_ mid: Int32) {
        abandoned.insert(mid)
    }

    /// Removes the waiter of operation `serial` (its task was cancelled), remembering its id as
    /// abandoned; `nil` when it is not waiting (not registered yet, or already answered). A scan,
    /// but only on cancellation, so that no operation needs an object to carry its id.
    mutating func cancel(serial: UInt64) -> Waiter? {
        guard let mid = waiters.first(where: { $0.value.serial == serial })?.key else { return nil }
        return cancel(mid, serial: serial)
    }

    /// Removes the waiter for `mid` if it is operation `serial`'s (cancellation), remembering
    /// the id as abandoned.
    mutating func cancel(_ mid: Int32, serial: UInt64) -> Waiter? {
        guard waiters[mid]?.serial == serial, let waiter = waiters.removeValue(forKey: mid) else { return nil }
        abandoned.insert(mid)
        if waiter.stillQueuedOnGiveUp { held.insert(mid) }
        if waiters.isEmpty { earliestDeadline = nil }
        return waiter
    }

    /// Removes and returns the waiters whose deadline has passed.
    mutating func expire(now: ContinuousClock.Instant) -> [Waiter] {
        guard let earliest = earliestDeadline, earliest <= now else { return [] }
        var expired: [Waiter] = []
        var nextEarliest: ContinuousClock.Instant?
        for (mid, waiter) in waiters {
            if waiter.deadline <= now {
                waiters.removeValue(forKey: mid)
                abandoned.insert(mid)
                if waiter.stillQueuedOnGiveUp { held.insert(mid) }
                expired.append(waiter)
            } else if nextEarliest.map({ waiter.deadline < $0 }) ?? true {
                nextEarliest = waiter.deadline
            }
        }
        earliestDeadline = nextEarliest
        return expired
    }

    /// Removes and returns the waiters whose message libmosquitto does not resend after a
    /// reconnect (QoS 0 publishes, subscribes, unsubscribes): the connection was lost. The held
    /// ids are forgotten: their late acknowledgement is still dropped, but a caller may publish
    /// their content again (libmosquitto's own resend after the reconnect may duplicate it).
    mutating func removeUnqueued() -> [Waiter] {
        held.removeAll()
        var removed: [Waiter] = []
        for (mid, waiter) in waiters where !waiter.stillQueuedOnGiveUp {
            waiters.removeValue(forKey: mid)
            abandoned.insert(mid)
            removed.append(waiter)
        }
        if waiters.isEmpty { earliestDeadline = nil }
        return removed
    }

    /// Removes and returns every waiter (the handle is being destroyed).
    mutating func removeAll() -> [Waiter] {
        defer {
            waiters.removeAll()
            early.removeAll()
            abandoned.removeAll()
            held.removeAll()
            earliestDeadline = nil
        }
        return Array(waiters.values)
    }
}
