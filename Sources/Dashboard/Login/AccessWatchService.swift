import ServiceLifecycle

/// Closes open WebSockets soon after their access ends outside a request: the users file changed
/// (a new password, a removed account) or a session expired. Logout needs no wait: it closes its
/// WebSockets itself (``Authenticator/endSession(_:)``).
///
/// Every ``period`` it looks at the users file's modification time and checks each open
/// WebSocket's credential, so a change is acted on within a period plus the time to reread the
/// file; nothing is done while no WebSocket is open.
struct AccessWatchService: Service {
    /// How often the users file and the open WebSockets are checked.
    static var period: Duration { .milliseconds(250) }

    let authenticator: Authenticator

    /// Checks every ``period`` until graceful shutdown or cancellation.
    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while true {
                authenticator.closeEndedAccess()
                try await Task.sleep(for: Self.period)
            }
        }
    }
}
