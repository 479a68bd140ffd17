import Synchronization

/// The credentials of the open WebSockets, each waiting for its access to end (issue 24: an open
/// `/ws` kept streaming positions after logout, a password change or the account's removal).
///
/// ``Authenticator`` asks it to ``revoke(where:)`` whenever access may have ended: at logout at
/// once, and after each look at the users file (``AccessWatchService``, four times a second while
/// a WebSocket is open; while none is, it waits in ``untilWatching()``).
final class AccessWatch: Sendable {
    private struct Watcher {
        let credential: Credential
        var continuation: CheckedContinuation<Void, Never>?
    }

    private struct State {
        var watchers: [UInt64: Watcher] = [:]
        var nextID: UInt64 = 0
        /// Tasks in ``untilWatching()``, woken by the first connection registered.
        var idle: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    /// How many connections are watched now.
    var count: Int { state.withLock { $0.watchers.count } }

    /// Returns when ``revoke(where:)`` finds `credential` no longer valid, or when the task is
    /// cancelled (the connection ended on its own). `isValid` is asked once after registering, so
    /// an access that ended just before is not missed.
    func untilRevoked(_ credential: Credential, isValid: () -> Bool) async {
        let (id, idle) = state.withLock { state -> (UInt64, [CheckedContinuation<Void, Never>]) in
            state.nextID += 1
            state.watchers[state.nextID] = Watcher(credential: credential)
            defer { state.idle.removeAll() }
            return (state.nextID, Array(state.idle.values))
        }
        for waiter in idle { waiter.resume() }
        defer { _ = state.withLock { $0.watchers.removeValue(forKey: id) } }
        guard isValid() else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    // Gone: revoked between registering and here, or cancelled.
                    guard state.watchers[id] != nil, !Task.isCancelled else { return true }
                    state.watchers[id]?.continuation = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.watchers.removeValue(forKey: id)?.continuation }?.resume()
        }
    }

    /// Returns as soon as at least one connection is watched (at once if one is), or when the task
    /// is cancelled: the doorbell ``AccessWatchService`` waits on while no WebSocket is open, so an
    /// idle dashboard does not look at the users file four times a second for nobody.
    func untilWatching() async {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    guard state.watchers.isEmpty, !Task.isCancelled else { return true }
                    state.idle[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.idle.removeValue(forKey: id) }?.resume()
        }
    }

    /// Ends the wait of every connection whose credential `isRevoked` says has lost its access;
    /// returns their accounts' names (one per connection).
    @discardableResult
    func revoke(where isRevoked: (Credential) -> Bool) -> [String] {
        let credentials = state.withLock { state in Array(Set(state.watchers.values.map(\.credential))) }
        let revoked = Set(credentials.filter(isRevoked))
        guard !revoked.isEmpty else { return [] }
        let ended = state.withLock { state -> [(String, CheckedContinuation<Void, Never>?)] in
            let ids = state.watchers.filter { revoked.contains($0.value.credential) }.map(\.key)
            return ids.compactMap { id in state.watchers.removeValue(forKey: id).map { ($0.credential.account, $0.continuation) } }
        }
        for (_, continuation) in ended { continuation?.resume() }
        return ended.map(\.0)
    }
}
