import Foundation
import WhereaboutsTestSupport

/// Hand-written HTTP requests to a dashboard with exactly the credentials a test gives (no cookie
/// jar, no redirects followed), and their answers taken apart.
struct LoginHTTP: Sendable {
    /// One answer: status, headers (names lower-cased) and body.
    struct Answer: Sendable {
        var status: Int
        var headers: [String: String]
        var body: String

        /// The body as a JSON object (nil when it is not one).
        var object: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] }
        /// The body as a JSON array (nil when it is not one).
        var array: [[String: Any]]? { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [[String: Any]] }
        /// The `error` code of a JSON error body.
        var error: String? { object?["error"] as? String }
    }

    let port: Int
    /// How long a read of the answer may wait (``RawHTTP/send(port:request:readTimeout:)``).
    var readTimeout: Duration = .seconds(10)

    /// Sends `method path` with `headers` (and `body`, with its length).
    func send(_ path: String, method: String = "GET", headers: [String] = [], body: String? = nil) async throws -> Answer {
        var head = ["\(method) \(path) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"] + headers
        if let body { head.append("Content-Length: \(body.utf8.count)") }
        let raw = try await RawHTTP.send(port: port, request: head.joined(separator: "\r\n") + "\r\n\r\n" + (body ?? ""), readTimeout: readTimeout)
        var headerFields: [String: String] = [:]
        let headText = raw.text.components(separatedBy: "\r\n\r\n").first ?? ""
        for line in headText.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headerFields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let body = headerFields["transfer-encoding"]?.lowercased() == "chunked" ? Self.dechunked(raw.body) : raw.body
        return Answer(status: raw.status, headers: headerFields, body: body)
    }

    /// The payload of a `Transfer-Encoding: chunked` body (hex size line, data, CRLF; size 0 ends).
    static func dechunked(_ body: String) -> String {
        var bytes = Array(body.utf8)[...]
        var out: [UInt8] = []
        while let lineEnd = bytes.firstIndex(of: UInt8(ascii: "\r")),
              let size = Int(String(decoding: bytes[bytes.startIndex..<lineEnd], as: UTF8.self).split(separator: ";").first ?? "", radix: 16),
              size > 0 {
            let start = lineEnd + 2
            guard start + size <= bytes.endIndex else { break }
            out += bytes[start..<(start + size)]
            bytes = bytes[min(bytes.endIndex, start + size + 2)...]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `GET path` with the session `cookie`.
    func get(_ path: String, cookie: String) async throws -> Answer {
        try await send(path, headers: ["Cookie: whereabouts_session=\(cookie)"])
    }

    /// `GET path` with HTTP basic credentials.
    func get(_ path: String, user: String, password: String) async throws -> Answer {
        try await send(path, headers: ["Authorization: Basic \(Data("\(user):\(password)".utf8).base64EncodedString())"])
    }

    /// `GET path` with a bearer token.
    func get(_ path: String, bearer: String) async throws -> Answer {
        try await send(path, headers: ["Authorization: Bearer \(bearer)"])
    }

    /// Logs in through the form (`POST /login`) and returns the answer.
    func formLogin(user: String, password: String) async throws -> Answer {
        let body = "user=\(user.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")&password=\(password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
        return try await send("/login", method: "POST", headers: ["Content-Type: application/x-www-form-urlencoded"], body: body)
    }

    /// The session token of a `Set-Cookie` header.
    static func sessionToken(_ answer: Answer) -> String? {
        guard let cookie = answer.headers["set-cookie"], cookie.hasPrefix("whereabouts_session=") else { return nil }
        return cookie.dropFirst("whereabouts_session=".count).split(separator: ";").first.map(String.init)
    }
}
