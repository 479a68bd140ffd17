import Foundation
import Hummingbird
import Subscriber

extension DashboardRouter {
    /// The most bytes a login request body may have.
    static let maxLoginBody = 16_384

    /// Adds the login routes (docs/dashboard.md, "Login"):
    /// - `GET /login` the login form; `POST /login` (form: `user`, `password`) sets the session
    ///   cookie and sends the browser to `/` (401 or 429 with the form and a message otherwise).
    /// - `POST /api/login` (JSON `{"user","password"}`) answers `{"token","user","expires"}` and
    ///   sets the cookie too; the token works as `Authorization: Bearer <token>`.
    /// - `POST /logout` ends the session of the cookie or bearer token and clears the cookie.
    /// - `GET /api/me` who is logged in: `{"user","circles","admin","open"}`.
    /// Without an authenticator (open development mode) `/login` says so and `/api/me` answers
    /// `{"open": true}`.
    static func addLoginRoutes(
        to router: Router<DashboardRequestContext>, authenticator: Authenticator?, source: CircleViewStore, title: String
    ) {
        let template = String(decoding: PackageResources.login_html, as: UTF8.self).replacingOccurrences(of: "{{title}}", with: htmlEscaped(title))
        router.get("/login") { _, _ in
            loginPage(template, message: authenticator == nil ? "This dashboard runs without logins (no --users file): everything is open to this machine." : "", status: .ok)
        }
        router.post("/login") { request, context in
            guard let authenticator else { return Response(status: .seeOther, headers: [.location: "/"]) }
            let form = formFields(String(buffer: try await request.body.collect(upTo: maxLoginBody)))
            switch await authenticator.check(name: form["user"] ?? "", password: form["password"] ?? "", address: context.clientAddress) {
            case .accepted(let account):
                let session = authenticator.startSession(for: account)
                return Response(status: .seeOther, headers: [
                    .location: "/", .setCookie: sessionCookie(session.token, authenticator: authenticator), .cacheControl: "no-store",
                ])
            case .refused:
                return loginPage(template, message: LoginError.refused.message, status: .unauthorized)
            case .limited(let wait):
                var response = loginPage(template, message: LoginError.limited(retryAfter: wait).message, status: .tooManyRequests)
                response.headers[.retryAfter] = "\(wait)"
                return response
            }
        }
        router.post("/api/login") { request, context in
            guard let authenticator else {
                throw APIError(status: .notFound, code: "login_disabled", message: "This dashboard runs without logins (no --users file); no token is needed.")
            }
            let body = try await request.body.collect(upTo: maxLoginBody)
            guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
                  let user = object["user"] as? String, let password = object["password"] as? String else {
                throw APIError(status: .badRequest, code: "bad_login", message: "Send a JSON object {\"user\": ..., \"password\": ...}.")
            }
            switch await authenticator.check(name: user, password: password, address: context.clientAddress) {
            case .accepted(let account):
                let session = authenticator.startSession(for: account)
                var response = try JSONBody.response(
                    TokenBody(token: session.token, user: account.name, expires: Int(session.expires.timeIntervalSince1970)))
                response.headers[.setCookie] = sessionCookie(session.token, authenticator: authenticator)
                return response
            case .refused: throw LoginError.refused
            case .limited(let wait): throw LoginError.limited(retryAfter: wait)
            }
        }
        router.post("/logout") { request, _ in
            // Ending a session also closes the WebSockets opened with it.
            if let token = request.cookies[LoginMiddleware.cookieName]?.value { authenticator?.endSession(token) }
            if let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") {
                authenticator?.endSession(String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces))
            }
            let secure = authenticator?.configuration.secureCookie == true ? "; Secure" : ""
            return Response(status: .seeOther, headers: [
                .location: "/login", .cacheControl: "no-store",
                .setCookie: "\(LoginMiddleware.cookieName)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict\(secure)",
            ])
        }
        router.get("/api/me") { _, context in
            switch context.viewer {
            case .open, .nobody:
                return try JSONBody.response(MeBody(user: nil, circles: nil, admin: [], open: true))
            case .account(let account):
                let access = ViewerAccess.of(context.viewer, views: await source.views())
                return try JSONBody.response(MeBody(user: account.name, circles: access.circles.map { $0.sorted() }, admin: account.admin.sorted(), open: false))
            }
        }
    }

    private struct TokenBody: Encodable {
        var token: String
        var user: String
        var expires: Int
    }

    private struct MeBody: Encodable {
        var user: String?
        var circles: [String]?
        var admin: [String]
        var open: Bool
    }

    /// The `Set-Cookie` value of a new session: never readable by scripts, never sent by other sites.
    private static func sessionCookie(_ token: String, authenticator: Authenticator) -> String {
        let secure = authenticator.configuration.secureCookie ? "; Secure" : ""
        return "\(LoginMiddleware.cookieName)=\(token); Path=/; Max-Age=\(Int(authenticator.configuration.sessionLifetime)); HttpOnly; SameSite=Strict\(secure)"
    }

    private static func loginPage(_ template: String, message: String, status: HTTPResponse.Status) -> Response {
        let html = template.replacingOccurrences(of: "{{message}}", with: htmlEscaped(message))
        return Response(
            status: status,
            headers: [
                .contentType: ResponseHeaderValues.html, .cacheControl: "no-store", .xContentTypeOptions: "nosniff",
                .contentSecurityPolicy: ResponseHeaderValues.loginPolicy,
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// The fields of an `application/x-www-form-urlencoded` body (the first of repeated names).
    static func formFields(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            let name = decode(parts[0])
            if fields[name] == nil { fields[name] = parts.count == 2 ? decode(parts[1]) : "" }
        }
        return fields
    }

    private static func htmlEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
