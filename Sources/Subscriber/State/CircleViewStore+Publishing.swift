import Foundation

extension CircleViewStore {
    /// Collects what is due at `now`: views of changed circles whose last collection is at least
    /// ``viewInterval`` ago, pending events (members that turned stale are detected here), and
    /// removed circles. Collected views also go to every ``updates()`` sequence.
    public func collectDue(at now: Date = Date()) -> PublishBatch {
        let nowSeconds = now.timeIntervalSince1970
        changeSignalled = false
        if nowSeconds >= nextStaleCheck { checkStaleness(at: nowSeconds) }
        var batch = PublishBatch()
        var nextDue = Double.infinity
        for id in dirty {
            guard let circle = circlesByID[id] else {
                dirty.remove(id)
                continue
            }
            let due = (lastCollected[id] ?? -.infinity) + viewInterval
            if due <= nowSeconds {
                batch.views.append(buildView(circle, at: nowSeconds))
                lastCollected[id] = nowSeconds
                dirty.remove(id)
            } else {
                nextDue = min(nextDue, due)
            }
        }
        batch.views.sort { $0.circle.id < $1.circle.id }
        batch.events = pendingEvents
        pendingEvents.removeAll(keepingCapacity: true)
        batch.removedCircles = removedCircles
        removedCircles.removeAll()
        stats.viewsBuilt += batch.views.count
        stats.events += batch.events.count
        for view in batch.views {
            for continuation in subscribers.values { continuation.yield(view) }
        }
        let next = min(nextDue, nextStaleCheck)
        batch.nextDeadline = next.isFinite ? Date(timeIntervalSince1970: next) : nil
        return batch
    }

    /// Suspends until something may have changed what is due (a circle became dirty, an event),
    /// returning at once if that happened since the last ``collectDue(at:)``.
    /// Returns early when the calling task is cancelled.
    public func waitForChanges() async {
        if changeSignalled { return }
        let id = nextWaiterID
        nextWaiterID += 1
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if Task.isCancelled || changeSignalled {
                    continuation.resume()
                } else {
                    changeWaiter?.continuation.resume()
                    changeWaiter = (id, continuation)
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    private func cancelWaiter(_ id: UInt64) {
        guard let waiter = changeWaiter, waiter.id == id else { return }
        changeWaiter = nil
        waiter.continuation.resume()
    }

    func signalChange() {
        changeSignalled = true
        if let waiter = changeWaiter {
            changeWaiter = nil
            waiter.continuation.resume()
        }
    }

    /// Finds members whose silence passed the stale timeout, announces them, and recomputes the
    /// earliest next deadline.
    func checkStaleness(at now: Double) {
        var next = Double.infinity
        for (member, var state) in states {
            if let change = state.takeStatusChange(at: now, staleTimeout: settings.staleTimeout) {
                states[member] = state
                let circleIDs = memberCircles[member] ?? []
                markDirty(circleIDs, at: now)
                announce(change, of: member, in: circleIDs, at: now)
            }
            if state.announced == .online, let deadline = state.staleDeadline(staleTimeout: settings.staleTimeout) {
                next = min(next, deadline)
            }
        }
        nextStaleCheck = next
    }
}
