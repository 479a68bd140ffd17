import Foundation
import Synchronization

/// Limits password checks per account name and per client address, in fixed windows: once either
/// has failed its limit within a window, further attempts are refused unchecked (429 with
/// `Retry-After`) until the window ends. A successful login clears its account's count, never its
/// address's, so one good account cannot launder guesses at others.
///
/// The limit holds whatever the concurrency: a check is reserved before the password is hashed
/// (``reserve(account:address:now:)``), and a check in flight counts as a failure until it ends,
/// so at most the limit of checks ever run for one account or one address. Counting failures only
/// after the bcrypt check let 40, 100 and 200 parallel attempts make 14, 6 and 43 checks against
/// a limit of 5 (issue 24). An attempt that finds the limit taken up by checks still running
/// waits for them to end, then tries again: parallel logins with the right password all pass, a
/// few at a time, and a burst of wrong ones gets 429 after the limit.
final class LoginRateLimiter: Sendable {
    /// A password check allowed to run; hand it back to ``finish(_:succeeded:now:)``.
    struct Reservation: Sendable {
        fileprivate let account: String
        fileprivate let address: String
    }

    /// What ``reserve(account:address:now:)`` decided.
    enum Admission: Sendable {
        /// Check the password, then report with ``finish(_:succeeded:now:)``.
        case check(Reservation)
        /// Refused unchecked: try again after this many seconds.
        case limited(retryAfter: Int)
    }

    private struct Window {
        /// When the first failure of the window was counted; `nil`: none yet.
        var start: Date?
        var failures = 0
        /// Checks reserved and not yet finished.
        var inFlight = 0

        mutating func expire(length: TimeInterval, now: Date) {
            if let start, now.timeIntervalSince(start) >= length {
                self.start = nil
                failures = 0
            }
        }

        var isIdle: Bool { start == nil && inFlight == 0 }
    }

    private enum Decision {
        case admit
        case limited(Int)
        case wait
    }

    private struct State {
        var accounts: [String: Window] = [:]
        var addresses: [String: Window] = [:]
        /// Attempts waiting for a check in flight to end.
        var waiters: [UInt64: CheckedContinuation<Admission?, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let settings: LoginConfiguration
    private let state = Mutex(State())

    /// Creates a limiter with the limits of `settings`.
    init(settings: LoginConfiguration) {
        self.settings = settings
    }

    /// Reserves a password check for `account` from `address`: at once when neither limit is
    /// taken up; `limited` when either has failed its limit in this window; otherwise it waits
    /// until a check in flight ends and decides again.
    func reserve(account: String, address: String, now: @Sendable () -> Date = { Date() }) async -> Admission {
        while true {
            let id = state.withLock { state -> UInt64 in
                state.nextWaiter += 1
                return state.nextWaiter
            }
            let decided: Admission? = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Admission?, Never>) in
                    let decision = state.withLock { state -> Decision in
                        let decision = decide(&state, account: account, address: address, now: now())
                        if case .wait = decision {
                            if Task.isCancelled { return .limited(Int(settings.failureWindow)) }
                            state.waiters[id] = continuation
                        }
                        return decision
                    }
                    switch decision {
                    case .admit: continuation.resume(returning: .check(Reservation(account: account, address: address)))
                    case .limited(let wait): continuation.resume(returning: .limited(retryAfter: wait))
                    case .wait: break  // resumed with nil by finish or cancellation: decide again
                    }
                }
            } onCancel: {
                state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
            }
            if let decided { return decided }
            if Task.isCancelled { return .limited(retryAfter: Int(settings.failureWindow)) }
        }
    }

    /// Ends a reserved check: a failure counts against both the account and the address, a success
    /// clears the account's failures. Attempts waiting for a free place decide again.
    func finish(_ reservation: Reservation, succeeded: Bool, now: Date = Date()) {
        let waiters = state.withLock { state -> [CheckedContinuation<Admission?, Never>] in
            let length = settings.failureWindow
            var account = state.accounts[reservation.account] ?? Window()
            account.inFlight -= 1
            account.expire(length: length, now: now)
            if succeeded {
                account.start = nil
                account.failures = 0
            } else {
                Self.count(&account, now: now)
            }
            state.accounts[reservation.account] = account.isIdle ? nil : account
            var window = state.addresses[reservation.address] ?? Window()
            window.inFlight -= 1
            window.expire(length: length, now: now)
            if !succeeded { Self.count(&window, now: now) }
            state.addresses[reservation.address] = window.isIdle ? nil : window
            if state.accounts.count + state.addresses.count > 100_000 {  // bounded memory under a spray of names
                Self.prune(&state.accounts, length: length, now: now)
                Self.prune(&state.addresses, length: length, now: now)
            }
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }

    private func decide(_ state: inout State, account: String, address: String, now: Date) -> Decision {
        let length = settings.failureWindow
        var accountWindow = state.accounts[account] ?? Window()
        var addressWindow = state.addresses[address] ?? Window()
        accountWindow.expire(length: length, now: now)
        addressWindow.expire(length: length, now: now)
        let waits = [
            Self.wait(accountWindow, limit: settings.maxFailuresPerAccount, length: length, now: now),
            Self.wait(addressWindow, limit: settings.maxFailuresPerAddress, length: length, now: now),
        ].compactMap { $0 }
        if let wait = waits.max() { return .limited(wait) }
        guard accountWindow.failures + accountWindow.inFlight < settings.maxFailuresPerAccount,
              addressWindow.failures + addressWindow.inFlight < settings.maxFailuresPerAddress
        else { return .wait }
        accountWindow.inFlight += 1
        addressWindow.inFlight += 1
        state.accounts[account] = accountWindow
        state.addresses[address] = addressWindow
        return .admit
    }

    private static func count(_ window: inout Window, now: Date) {
        if window.start == nil { window.start = now }
        window.failures += 1
    }

    private static func prune(_ windows: inout [String: Window], length: TimeInterval, now: Date) {
        windows = windows.filter { _, window in
            var window = window
            window.expire(length: length, now: now)
            return !window.isIdle
        }
    }

    private static func wait(_ window: Window?, limit: Int, length: TimeInterval, now: Date) -> Int? {
        guard let window, let start = window.start, window.failures >= limit else { return nil }
        let remaining = length - now.timeIntervalSince(start)
        return remaining > 0 ? Int(remaining.rounded(.up)) : nil
    }
}
