import HummingbirdWebSocket
import NIOWebSocket

/// Runs one WebSocket connection's work for as long as the access that opened it lasts.
enum WebSocketAccess {
    /// Runs `work` until it ends, or until the login that let the connection in ends (logout, a
    /// changed password, the account removed from the users file, the session expired): then the
    /// connection is closed with 1008 (policy violation) and the reason "access ended". In the
    /// open mode (no users file) `work` just runs.
    static func run(
        context: DashboardRequestContext,
        authenticator: Authenticator?,
        outbound: WebSocketOutboundWriter,
        _ work: @escaping @Sendable () async throws -> Void
    ) async throws {
        guard let authenticator, let credential = Authenticator.credential(of: context.viewer, session: context.session) else {
            try await work()
            return
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await work() }
            group.addTask {
                await authenticator.untilAccessEnds(credential)
                // The close frame also ends the client's side, and so `work`'s reading.
                if !Task.isCancelled { try? await outbound.close(.policyViolation, reason: "access ended") }
            }
            // Whichever ends first ends the other.
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}
