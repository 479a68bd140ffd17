import Hummingbird
import Logging

/// Refuses, with 403 and a JSON body, every request whose `Host` or `Origin` the
/// ``RequestOriginPolicy`` does not accept; on the WebSocket router this also means no upgrade.
///
/// Each refusal is logged at notice with the header that caused it (host names and origins are
/// not personal data).
struct RequestOriginMiddleware<Context: RequestContext>: RouterMiddleware {
    let policy: RequestOriginPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let origins = request.headers[values: .origin]
        guard let refusal = policy.refusal(host: request.head.authority, origins: origins) else {
            return try await next(request, context)
        }
        let error = APIError.refused(refusal)
        context.logger.notice(
            "Dashboard request refused",
            metadata: [
                "whereabouts.http.path": "\(request.uri.path)", "whereabouts.http.host": "\(request.head.authority ?? "-")",
                "whereabouts.http.origin": "\(origins.isEmpty ? "-" : origins.joined(separator: ", "))", "whereabouts.error": "\(error.code)",
            ])
        throw error
    }
}
