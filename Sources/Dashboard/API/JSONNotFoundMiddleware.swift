import Subscriber
import Hummingbird
import HummingbirdWebSocket
import Logging

/// Answers requests no route matched with a JSON 404 instead of an empty body.
struct JSONNotFoundMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            throw APIError.routeNotFound(request.uri.path)
        }
    }
}
