import Foundation
import Hummingbird

/// Decides who is asking, for every route and every WebSocket upgrade, and refuses everyone else.
///
/// Without an ``Authenticator`` (no users file, on loopback) every request is ``Viewer/open``.
/// With one, a request must carry the session cookie, `Authorization: Bearer <token>` (a session
/// from `POST /api/login`) or `Authorization: Basic` (checked with bcrypt under the rate limit);
/// only the login page and the login calls themselves are served without. `GET /` without a
/// login is sent to the login page; anything else gets 401 JSON.
struct LoginMiddleware: RouterMiddleware {
    typealias Context = DashboardRequestContext

    /// The paths served without a login.
    static let publicPaths: Set<String> = ["/login", "/api/login"]
    /// The session cookie's name.
    static let cookieName = "whereabouts_session"

    let authenticator: Authenticator?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        guard let authenticator else {
            context.viewer = .open
            return try await next(request, context)
        }
        if Self.publicPaths.contains(request.uri.path) { return try await next(request, context) }
        if let authorization = request.headers[.authorization] {
            let (account, session) = try await Self.account(authorization, authenticator: authenticator, address: context.clientAddress)
            context.viewer = .account(account)
            context.session = session
            return try await next(request, context)
        }
        if let token = request.cookies[Self.cookieName]?.value, let account = authenticator.account(forSession: token) {
            context.viewer = .account(account)
            context.session = token
            return try await next(request, context)
        }
        if request.method == .get, request.uri.path == "/" {
            return Response(status: .seeOther, headers: [.location: "/login", .cacheControl: "no-store"])
        }
        throw request.cookies[Self.cookieName] == nil ? LoginError.required : LoginError.badSession
    }

    /// Whether `Cookie` headers (as sent, `a=1; b=2`) hold a live session cookie.
    static func hasLiveSession(cookieHeaders: [String], authenticator: Authenticator) -> Bool {
        for header in cookieHeaders {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2, parts[0] == cookieName, authenticator.account(forSession: parts[1]) != nil { return true }
            }
        }
        return false
    }

    /// The account an `Authorization` header names, and its session token: a bearer session or
    /// basic credentials (no session).
    private static func account(_ header: String, authenticator: Authenticator, address: String) async throws -> (Account, String?) {
        let parts = header.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { throw LoginError.badAuthorization }
        switch parts[0].lowercased() {
        case "bearer":
            let token = parts[1].trimmingCharacters(in: .whitespaces)
            guard let account = authenticator.account(forSession: token) else { throw LoginError.badSession }
            return (account, token)
        case "basic":
            guard let data = Data(base64Encoded: parts[1].trimmingCharacters(in: .whitespaces)),
                  let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
            else { throw LoginError.badAuthorization }
            switch await authenticator.check(name: String(text[..<colon]), password: String(text[text.index(after: colon)...]), address: address) {
            case .accepted(let account): return (account, nil)
            case .refused: throw LoginError.refused
            case .limited(let wait): throw LoginError.limited(retryAfter: wait)
            }
        default:
            throw LoginError.badAuthorization
        }
    }
}
