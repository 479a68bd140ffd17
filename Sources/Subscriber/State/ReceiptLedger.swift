import Foundation
import Synchronization

/// What the subscriber has taken in of each publisher's reports, for its receipts
/// (docs/receipts.md).
///
/// Ingest notes every stamped report with a *ticket*: the point after which it is durable (its
/// history row committed, or the status file written after it; 0 for what needs nothing stored,
/// such as a rejection; `nil` when it could not be stored at all). The receipt sender asks
/// ``takeDue(durableThrough:)`` once a second for the devices whose receipt moved forward or
/// was asked for again by a resent duplicate, and while no device is touched it waits in
/// ``waitForWork()``. Shared by ingest and the sender under one `Mutex`.
final class ReceiptLedger: Sendable {
    /// A receipt to publish: every report of `epoch` up to `seq` is durably taken in.
    struct Due: Sendable, Hashable {
        var member: MemberID
        var epoch: String
        var seq: Int64
    }

    /// One device's reports of its current epoch.
    private struct Device {
        var epoch: String
        /// Every report up to this sequence number is durably taken in (or settled).
        var through: Int64 = 0
        /// Reports above ``through`` taken in, with their ticket (`nil`: not stored).
        var taken: [Int64: Int?] = [:]
        /// A receipt was asked for (a duplicate) or may be due (something was taken in).
        var due = false
        /// The last ``through`` sent in a receipt.
        var sent: Int64 = -1
    }

    private struct State {
        var devices: [MemberID: Device] = [:]
        /// Devices with something new since the last ``takeDue(durableThrough:)``.
        var touched: Set<MemberID> = []
        /// The status file's generation: a report noted now is durable once the save that
        /// starts after it succeeded (``beginStatusSave()``, ``statusSaved(_:)``).
        var statusGeneration = 1
        var statusSaved = 0
        /// Wakes the receipt sender parked in ``waitForWork()`` when a device is touched.
        var work = ChangeSignal()
    }

    private let state = Mutex(State())
    /// The most reports kept per device above its confirmed point; beyond it they are not noted
    /// (the publisher sends them again).
    static let maxTakenPerDevice = 10_000

    init() {}

    /// Notes a stamped report of `member` taken in with `ticket` (see the type's comment).
    func note(_ stamp: ReportStamp, of member: MemberID, ticket: Int?) {
        state.withLock { state in
            var device = state.devices[member] ?? Device(epoch: stamp.epoch)
            if device.epoch != stamp.epoch { device = Device(epoch: stamp.epoch) }
            if stamp.settled - 1 > device.through {
                device.through = stamp.settled - 1
                device.taken = device.taken.filter { $0.key > device.through }
            }
            if stamp.seq <= device.through {
                device.due = true  // a resent duplicate: answer it, the first receipt may be lost
            } else if let known = device.taken[stamp.seq], known != nil {
                device.due = true  // already noted with a ticket; keep the earlier one
            } else if device.taken.count < Self.maxTakenPerDevice || device.taken[stamp.seq] != nil {
                device.taken[stamp.seq] = ticket
            }
            state.devices[member] = device
            state.touched.insert(member)
            state.work.signal()
        }
    }

    /// The ticket of a report noted now when the status file makes it durable.
    var statusTicket: Int { state.withLock { $0.statusGeneration } }

    /// Called before the status snapshot is taken: returns the generation that save covers.
    func beginStatusSave() -> Int {
        state.withLock { state in
            defer { state.statusGeneration += 1 }
            return state.statusGeneration
        }
    }

    /// The save of `generation` succeeded (or had nothing to write): reports noted up to it are durable.
    func statusSaved(_ generation: Int) {
        state.withLock { $0.statusSaved = max($0.statusSaved, generation) }
    }

    /// The watermark of the status file: tickets up to it are durable.
    var statusDurableThrough: Int { state.withLock { $0.statusSaved } }

    /// Moves every touched device's confirmed point over the reports whose ticket is at most
    /// `durableThrough`, and returns the receipts due: one per device that moved or was asked
    /// again. Devices still waiting stay touched.
    func takeDue(durableThrough: Int) -> [Due] {
        state.withLock { state in
            state.work.reset()
            var due: [Due] = []
            var still: Set<MemberID> = []
            for member in state.touched {
                guard var device = state.devices[member] else { continue }
                while let entry = device.taken[device.through + 1], let ticket = entry, ticket <= durableThrough {
                    device.taken[device.through + 1] = nil
                    device.through += 1
                }
                if device.through != device.sent || device.due, device.through > 0 {
                    due.append(Due(member: member, epoch: device.epoch, seq: device.through))
                    device.sent = device.through
                    device.due = false
                }
                if device.taken.keys.contains(where: { $0 == device.through + 1 }) { still.insert(member) }
                state.devices[member] = device
            }
            state.touched = still
            return due.sorted { $0.member < $1.member }
        }
    }

    /// Asks again for `receipts` whose publish failed.
    func retry(_ receipts: [Due]) {
        state.withLock { state in
            for receipt in receipts {
                state.devices[receipt.member]?.due = true
                state.touched.insert(receipt.member)
            }
            state.work.signal()
        }
    }

    /// Suspends until a device is touched (a report noted, a receipt to send again), returning
    /// at once if one is; returns early when the calling task is cancelled. The receipt sender
    /// waits here while it has nothing to send, instead of looking every second.
    func waitForWork() async {
        let id = state.withLock { $0.work.makeWaiterID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                state.withLock { state in
                    // Cancellation sets the flag before the handler takes the lock: either the
                    // flag is seen here, or the handler finds the parked waiter.
                    if Task.isCancelled || !state.touched.isEmpty {
                        continuation.resume()
                    } else {
                        state.work.park(continuation, id: id)
                    }
                }
            }
        } onCancel: {
            state.withLock { $0.work.cancel(id) }
        }
    }

    /// Whether a receipt was already made for `member` in this run.
    func hasAnswered(_ member: MemberID) -> Bool {
        state.withLock { ($0.devices[member]?.sent ?? -1) >= 0 }
    }

    /// Forgets a member (removed from the circles).
    func forget(_ member: MemberID) {
        state.withLock { state in
            state.devices[member] = nil
            state.touched.remove(member)
        }
    }
}
