import Subscriber
import Hummingbird

extension DashboardRouter {
    /// Adds what the dashboard serves besides views, from the subscriber's store:
    /// - `GET /metrics`: the subscriber's Prometheus text (counts only, never positions).
    /// - `GET /api/circles/<id>/members/<user>/<device>/face`: the member's face image, with its
    ///   tag as `ETag` (`If-None-Match` answers 304); with `?v=<tag>` (what the page asks for) it
    ///   is cached for a year as immutable, since a new face has a new tag and so a new URL.
    ///
    /// With a login, `/metrics` also carries its counters (``Authenticator/metricsText()``).
    static func addSubscriberRoutes(
        to router: Router<DashboardRequestContext>, source: CircleViewStore, login: Authenticator? = nil
    ) {
        router.get("/metrics") { _, _ in
            var text = ByteBuffer(bytes: await source.renderMetrics())
            if let login { text.writeString(login.metricsText()) }
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],  // two parameters: more than MediaType holds
                body: ResponseBody(byteBuffer: text))
        }
        router.get("/api/circles/:id/members/:user/:device/face") { request, context in
            let (id, user, device, _) = try await visibleMember(context: context, source: source)
            guard let face = await source.face(circle: id, user: user, device: device) else {
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
