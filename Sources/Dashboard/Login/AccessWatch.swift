import Synchronization

/// The credentials of the open WebSockets, each waiting for its access to end (issue 24: an open
/// `/ws` kept streaming positions after logout, a password change or the account's removal).
///
/// ``Authenticator`` asks it to ``revoke(where:)`` whenever access may have ended: at logout at
/// once, and after each look at the users file (``AccessWatchService``, four times a second).
final class AccessWatch: Sendable {
    private struct Watcher {
        let credential: Credential
        var continuation: CheckedContinuation<Void, Never>?
    }

    private struct State {
        var watchers: [UInt64: Watcher] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// How many connections are watched now.
    var count: Int { state.withLock { $0.watchers.count } }

    /// Returns when ``revoke(where:)`` finds `credential` no longer valid, or when the task is
    /// cancelled (the connection ended on its own). `isValid` is asked once after registering, so
    /// an access that ended just before is not missed.
    func untilRevoked(_ credential: Credential, isValid: () -> Bool) async {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            state.watchers[state.nextID] = Watcher(credential: credential)
            return state.nextID
        }
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
