import HummingbirdWebSocket
import NIOWebSocket
import ServiceLifecycle

/// Runs one WebSocket connection's work for as long as the access that opened it lasts, and the
/// server runs.
enum WebSocketAccess {
    /// Runs `work` until it ends, or until:
    /// - the login that let the connection in ends (logout, a changed password, the account
    ///   removed from the users file, the session expired): the connection is closed with 1008
    ///   (policy violation) and the reason "access ended". In the open mode (no users file) there
    ///   is no such end.
    /// - the server shuts down gracefully: the connection is closed with 1000 (normal closure),
    ///   counted in `shutdown`; the page reconnects to the next server.
    static func run(
        context: DashboardRequestContext,
        authenticator: Authenticator?,
        outbound: WebSocketOutboundWriter,
        shutdown: ShutdownTally,
        _ work: @escaping @Sendable () async throws -> Void
    ) async throws {
        let credential = authenticator.flatMap { _ in Authenticator.credential(of: context.viewer, session: context.session) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await work() }
            if let authenticator, let credential {
                group.addTask {
                    await authenticator.untilAccessEnds(credential)
                    // The close frame also ends the client's side, and so `work`'s reading.
                    if !Task.isCancelled { try? await outbound.close(.policyViolation, reason: "access ended") }
                }
            }
            group.addTask {
                // Throws when `work` ended first (cancelled below); the close frame ends `work`.
                try await gracefulShutdown()
                shutdown.closedWebSocket()
                try? await outbound.close(.normalClosure, reason: nil)
            }
            // Whichever ends first ends the others.
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}
