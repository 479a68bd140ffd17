import Hummingbird

/// CORS for the origins of ``CrossOriginPolicy``: answers their preflights (`OPTIONS` with
/// `Access-Control-Request-Method`) with 204 before any login is asked for (browsers send
/// preflights without credentials), and adds `Access-Control-Allow-Origin` to every other answer
/// to them, errors included, so a script can read a 401 or 404 too. Requests from any other
/// origin pass untouched (``RequestOriginMiddleware`` in front has already refused foreign ones).
struct CrossOriginMiddleware<Context: RequestContext>: RouterMiddleware {
    let policy: CrossOriginPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !policy.isEmpty, let origin = request.headers[.origin], policy.allows(origin) else {
            return try await next(request, context)
        }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            var response = Response(status: .noContent)
            Self.allow(origin, in: &response.headers)
            response.headers[.accessControlAllowMethods] = CrossOriginPolicy.methods
            response.headers[.accessControlAllowHeaders] = CrossOriginPolicy.headers
            response.headers[.accessControlMaxAge] = "\(CrossOriginPolicy.maxAge)"
            return response
        }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        Self.allow(origin, in: &response.headers)
        response.headers[.accessControlExposeHeaders] = CrossOriginPolicy.exposedHeaders
        return response
    }

    private static func allow(_ origin: String, in headers: inout HTTPFields) {
        headers[.accessControlAllowOrigin] = origin
        headers[values: .vary].append("Origin")
    }
}
