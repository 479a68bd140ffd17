import Hummingbird
import HTTPTypes

/// A login the dashboard refuses: 401 (with a `WWW-Authenticate` challenge, unless the request
/// carries `X-Requested-With`) or 429 (with
/// `Retry-After`), and a JSON body `{"error": code, "message": text}` like every API error.
struct LoginError: Error, Sendable, Hashable, HTTPResponseError {
    /// The HTTP status answered with.
    let status: HTTPResponse.Status
    /// A short machine-readable code.
    let code: String
    /// A sentence a user can act on.
    let message: String
    /// Seconds to wait, for 429.
    var retryAfter: Int?

    /// No credentials came with the request.
    static let required = LoginError(
        status: .unauthorized, code: "login_required",
        message: "Log in first: open /login in a browser, or send HTTP basic credentials, or a bearer token from POST /api/login.")
    /// The user name or password is wrong (which of the two is not told).
    static let refused = LoginError(status: .unauthorized, code: "login_refused", message: "The user name or password is wrong.")
    /// The session cookie or bearer token is not a live session.
    static let badSession = LoginError(
        status: .unauthorized, code: "session_invalid",
        message: "The session has ended (logged out, expired, password changed or server restarted) or never existed; log in again.")
    /// An `Authorization` header of a scheme other than Basic and Bearer, or malformed.
    static let badAuthorization = LoginError(
        status: .unauthorized, code: "bad_authorization",
        message: "The Authorization header must be `Basic <base64 of user:password>` or `Bearer <token>`.")

    /// Too many failed attempts.
    static func limited(retryAfter: Int) -> LoginError {
        LoginError(
            status: .tooManyRequests, code: "too_many_attempts",
            message: "Too many failed logins for this account or from this address; try again in \(retryAfter) seconds.",
            retryAfter: retryAfter)
    }

    /// Writes the JSON body with the challenge or the wait.
    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try JSONBody.response(Body(error: code, message: message), status: status)
        // Scripts that mark their calls (`X-Requested-With`, as the dashboard page does) get no
        // challenge: a browser would answer it with a password dialog instead of the page's form.
        let marked = Self.requestedWith.map { request.headers[$0] != nil } ?? false
        if status == .unauthorized, !marked {
            response.headers[.wwwAuthenticate] = "Basic realm=\"whereabouts\", charset=\"UTF-8\""
        }
        if let retryAfter { response.headers[.retryAfter] = "\(retryAfter)" }
        return response
    }

    /// `X-Requested-With`, which scripts set on their own calls.
    private static let requestedWith = HTTPField.Name("X-Requested-With")

    private struct Body: Encodable {
        var error: String
        var message: String
    }
}
