import Foundation
import Synchronization

/// Limits failed logins per account name and per client address, in fixed windows: once either
/// has failed its limit within a window, further attempts are refused unchecked (429 with
/// `Retry-After`) until the window ends. A successful login clears its account's count, never its
/// address's, so one good account cannot launder guesses at others.
final class LoginRateLimiter: Sendable {
    private struct Window {
        var start: Date
        var failures: Int
    }

    private struct State {
        var accounts: [String: Window] = [:]
        var addresses: [String: Window] = [:]
    }

    private let settings: LoginConfiguration
    private let state = Mutex(State())

    /// Creates a limiter with the limits of `settings`.
    init(settings: LoginConfiguration) {
        self.settings = settings
    }

    /// The seconds to wait before `account` may try again from `address`; `nil` when it may try now.
    func retryAfter(account: String, address: String, now: Date = Date()) -> Int? {
        state.withLock { state in
            let waits = [
                Self.wait(state.accounts[account], limit: settings.maxFailuresPerAccount, window: settings.failureWindow, now: now),
                Self.wait(state.addresses[address], limit: settings.maxFailuresPerAddress, window: settings.failureWindow, now: now),
            ].compactMap { $0 }
            return waits.max()
        }
    }

    /// Counts a failed attempt for `account` from `address`.
    func recordFailure(account: String, address: String, now: Date = Date()) {
        state.withLock { state in
            let window = settings.failureWindow
            if state.accounts.count + state.addresses.count > 100_000 {  // bounded memory under a spray of names
                state.accounts = state.accounts.filter { now.timeIntervalSince($0.value.start) < window }
                state.addresses = state.addresses.filter { now.timeIntervalSince($0.value.start) < window }
            }
            Self.count(&state.accounts[account], window: window, now: now)
            Self.count(&state.addresses[address], window: window, now: now)
        }
    }

    /// Clears the failures counted against `account`.
    func recordSuccess(account: String) {
        state.withLock { _ = $0.accounts.removeValue(forKey: account) }
    }

    private static func count(_ window: inout Window?, window length: TimeInterval, now: Date) {
        if let current = window, now.timeIntervalSince(current.start) < length {
            window?.failures += 1
        } else {
            window = Window(start: now, failures: 1)
        }
    }

    private static func wait(_ window: Window?, limit: Int, window length: TimeInterval, now: Date) -> Int? {
        guard let window, window.failures >= limit else { return nil }
        let remaining = length - now.timeIntervalSince(window.start)
        return remaining > 0 ? Int(remaining.rounded(.up)) : nil
    }
}
