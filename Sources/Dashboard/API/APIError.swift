import Hummingbird

/// An error the dashboard API answers with a JSON body `{"error": code, "message": text}`.
struct APIError: Error, Sendable, Hashable, HTTPResponseError {
    /// The HTTP status answered with.
    let status: HTTPResponse.Status
    /// A short machine-readable code, such as `circle_not_found`.
    let code: String
    /// A sentence a user can act on.
    let message: String

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

    /// The request's `Host` or `Origin` is not this dashboard's (see ``RequestOriginPolicy``).
    static func refused(_ refusal: RequestOriginPolicy.Refusal) -> APIError {
        switch refusal {
        case .malformedHost(let host):
            APIError(
                status: .badRequest, code: "bad_host",
                message: "The Host header \(host.map { "'\($0)'" } ?? "is missing; it") must be a host name or address with an optional port.")
        case .foreignHost(let host):
            APIError(
                status: .forbidden, code: "forbidden_host",
                message: "This dashboard does not answer to the host '\(host)'. Open it by its IP address or localhost, or start whereabouts-sub with --allowed-host and that name.")
        case .foreignOrigin(let origin):
            APIError(
                status: .forbidden, code: "forbidden_origin",
                message: "Pages from '\(origin)' may not use this dashboard. Open the dashboard's own page, or start whereabouts-sub with --allowed-origin \(origin).")
        }
    }

    /// Writes the JSON body.
    func response(from request: Request, context: some RequestContext) throws -> Response {
        try JSONBody.response(Body(error: code, message: message), status: status)
    }

    private struct Body: Encodable {
        var error: String
        var message: String
    }
}
