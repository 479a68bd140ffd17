import ServiceLifecycle

/// Closes open WebSockets soon after their access ends outside a request: the users file changed
/// (a new password, a removed account) or a session expired. Logout needs no wait: it closes its
/// WebSockets itself (``Authenticator/endSession(_:)``).
///
/// While a WebSocket is open it looks at the users file's modification time and checks each open
/// WebSocket's credential every ``period``, so a change is acted on within a period plus the time
/// to reread the file. The users file can change on disk at any time, and a session expires on the
/// clock, so this stays a poll while there is something to close. While no WebSocket is open there
/// is nothing to close: it waits for the first one to open (``Authenticator/untilWebSocketsOpen()``)
/// instead of waking four times a second (docs/dashboard.md, "Wake-ups while idle").
struct AccessWatchService: Service {
    /// How often the users file and the open WebSockets are checked.
    static var period: Duration { .milliseconds(250) }

    let authenticator: Authenticator

    /// Checks every ``period`` while a WebSocket is open, until graceful shutdown or cancellation.
    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while true {
                // A WebSocket's credential is checked as it registers (``AccessWatch``): the
                // first look after it opens is due a period later.
                await authenticator.untilWebSocketsOpen()
                try Task.checkCancellation()
                try await Task.sleep(for: Self.period)
                authenticator.closeEndedAccess()
            }
        }
    }
}
