import Hummingbird

/// An error the dashboard API answers with a JSON body `{"error": code, "message": text}`.
public struct APIError: Error, Sendable, Hashable, HTTPResponseError {
    /// The HTTP status answered with.
    public let status: HTTPResponse.Status
    /// A short machine-readable code, such as `circle_not_found`.
    public let code: String
    /// A sentence a user can act on.
    public let message: String

    /// No circle has the id.
    static func circleNotFound(_ id: String) -> APIError {
        APIError(status: .notFound, code: "circle_not_found", message: "No circle has the id '\(id)'.")
    }

    /// The circle has no member with this user and device.
    static func memberNotFound(circle: String, user: String, device: String) -> APIError {
        APIError(
            status: .notFound, code: "member_not_found",
            message: "Circle '\(circle)' has no member '\(user)/\(device)'."
        )
    }

    /// No route matches the path.
    static func routeNotFound(_ path: String) -> APIError {
        APIError(status: .notFound, code: "not_found", message: "Nothing is served at '\(path)'; the API starts at /api/circles.")
    }

    /// Writes the JSON body.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        try JSONBody.response(Body(error: code, message: message), status: status)
    }

    private struct Body: Encodable {
        var error: String
        var message: String
    }
}
