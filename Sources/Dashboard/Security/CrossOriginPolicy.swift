/// Which other origins' scripts may read the dashboard's answers (CORS), from `--cors-origin`.
///
/// Empty by default: browsers then keep every answer from pages of other origins, as before. An
/// origin on the list gets `Access-Control-Allow-Origin` naming it (never `*`) on every answer,
/// errors included, and its preflights are answered. `Access-Control-Allow-Credentials` is never
/// sent: the session cookie stays same-site, and a page of another origin authenticates with a
/// bearer token (`POST /api/login`, then `Authorization: Bearer`), which needs no credentials mode.
struct CrossOriginPolicy: Sendable, Hashable {
    /// The methods the dashboard serves to scripts.
    static let methods = "GET, HEAD, POST, PUT, DELETE"
    /// The request headers a script may send.
    static let headers = "Authorization, Content-Type"
    /// How long a browser may keep a preflight's answer, in seconds.
    static let maxAge = 600
    /// Answer headers a script may read besides the simple ones.
    static let exposedHeaders = "Retry-After, WWW-Authenticate"

    /// The allowed origins, normalised (lower case, no trailing slash).
    private let origins: Set<String>

    /// Creates the policy for the `--cors-origin` values.
    init(origins: [String]) {
        self.origins = Set(origins.map { RequestOriginPolicy.normalisedOrigin($0) })
    }

    /// Whether the list is empty (nothing to add to any answer).
    var isEmpty: Bool { origins.isEmpty }

    /// Whether the page of `origin` (an `Origin` header as sent) may read answers.
    func allows(_ origin: String) -> Bool {
        origins.contains(RequestOriginPolicy.normalisedOrigin(origin))
    }
}
