import Subscriber
import Hummingbird

/// What the dashboard serves besides views when its source is the subscriber itself: the
/// subscriber's Prometheus metrics and the members' card faces. The subscriber's view store
/// conforms; other sources simply do not get these routes.
protocol SubscriberDetailsSource: Sendable {
    /// The subscriber's metrics in the Prometheus text format.
    func metricsText() async -> [UInt8]
    /// The face of a member of `circle` from its OwnTracks card, or `nil` when the circle has no
    /// such member or the member sent no face.
    func memberFace(circle: String, user: String, device: String) async -> MemberFace?
    /// What is known of every member beyond the history (card, regions, the live fix's extra
    /// keys), which the Recorder API merges into `/api/0/last` and `/ws/last`.
    func memberDetails() async -> [MemberID: MemberDetails]
}

extension CircleViewStore: SubscriberDetailsSource {
    /// ``CircleViewStore/renderMetrics(at:)`` now.
    func metricsText() -> [UInt8] {
        renderMetrics()
    }

    /// ``CircleViewStore/face(circle:user:device:)``.
    func memberFace(circle: String, user: String, device: String) -> MemberFace? {
        face(circle: circle, user: user, device: device)
    }

    /// ``CircleViewStore/details(of:)`` of every member.
    func memberDetails() -> [MemberID: MemberDetails] {
        details()
    }
}

extension DashboardRouter {
    /// Adds, when `source` is a ``SubscriberDetailsSource``:
    /// - `GET /metrics`: Prometheus text (counts only, never positions).
    /// - `GET /api/circles/<id>/members/<user>/<device>/face`: the member's face image, with its
    ///   tag as `ETag` (`If-None-Match` answers 304); with `?v=<tag>` (what the page asks for) it
    ///   is cached for a year as immutable, since a new face has a new tag and so a new URL.
    ///
    /// With a login, `/metrics` also carries its counters (``Authenticator/metricsText()``).
    static func addSubscriberRoutes<Source: CircleViewSource>(
        to router: Router<DashboardRequestContext>, source: Source, login: Authenticator? = nil
    ) {
        guard let details = source as? any SubscriberDetailsSource else { return }
        router.get("/metrics") { _, _ in
            var text = ByteBuffer(bytes: await details.metricsText())
            if let login { text.writeString(login.metricsText()) }
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],  // two parameters: more than MediaType holds
                body: ResponseBody(byteBuffer: text))
        }
        router.get("/api/circles/:id/members/:user/:device/face") { request, context in
            let id = try context.parameters.require("id")
            let user = try context.parameters.require("user")
            let device = try context.parameters.require("device")
            guard await source.currentView(id: id) != nil, try await canSee(circle: id, context: context, source: source) else {
                throw APIError.circleNotFound(id)
            }
            guard await source.memberTrail(circle: id, user: user, device: device) != nil else {
                throw APIError.memberNotFound(circle: id, user: user, device: device)
            }
            guard let face = await details.memberFace(circle: id, user: user, device: device) else {
                throw APIError(
                    status: .notFound, code: "face_not_found",
                    message: "Member '\(user)/\(device)' of circle '\(id)' has sent no card with a face image.")
            }
            let etag = "\"\(face.tag)\""
            let cache = request.uri.queryParameters.get("v") == face.tag
                ? "private, max-age=31536000, immutable" : "private, no-cache"
            var headers: HTTPFields = [.eTag: etag, .cacheControl: cache, .xContentTypeOptions: "nosniff"]
            if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: {
                $0.trimmingCharacters(in: .whitespaces) == etag
            }) {
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentType] = face.contentType
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: face.data)))
        }
    }
}
