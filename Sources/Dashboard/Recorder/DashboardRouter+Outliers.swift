import Foundation
import Hummingbird
import Subscriber

extension DashboardRouter {
    /// Adds the outliers kept aside at ingest (docs/recorder-api.md, "Outliers"):
    /// - `GET /api/0/rejected?user=&device=&from=&to=&limit=` the member's rejected locations in
    ///   the range (same `from`/`to` rules and default as `/api/0/locations`), sorted by `tst`, in
    ///   the Recorder's location shape plus `reason` and `received_at`:
    ///   `{"count":…,"data":[…],"status":200}`.
    /// - `POST /api/0/rejected/restore?user=&device=&tst=N` restores one; `...&from=&to=` (both
    ///   required) a range: the points move into the history, audited (`restore`). Points still
    ///   in the future stay rejected and are counted.
    ///
    /// Both are allowed to whoever may read that history (the member themself, an admin of a
    /// circle that shows them exactly; anyone in the open mode), like `DELETE /api/0/locations`;
    /// others get 404 as for an unknown device.
    static func addOutlierRoutes(to router: Router<DashboardRequestContext>, history: HistoryStore, source: CircleViewStore) {
        @Sendable func member(of request: Request, _ context: DashboardRequestContext) async throws -> MemberID {
            let query = RecorderQuery.parameters(of: request)
            let member = MemberID(user: try RecorderQuery.required(query, "user"), device: try RecorderQuery.required(query, "device"))
            let scope: RecorderScope = switch context.viewer {
            case .open: .everyone
            case .nobody, .account: ViewerAccess.of(context.viewer, views: await source.views()).history
            }
            guard scope.contains(member), try await history.knows(member) else {
                throw APIError(
                    status: .notFound, code: "device_not_found",
                    message: "No locations are stored for '\(member.user.prefix(64))/\(member.device.prefix(64))'.")
            }
            return member
        }
        router.get("/api/0/rejected") { request, context in
            let query = RecorderQuery.parameters(of: request)
            let member = try await member(of: request, context)
            let range = try RecorderQuery.range(query, now: Date())
            let limit = try RecorderQuery.limit(query)
            let rejected = try await history.rejectedLocations(of: member, from: range.lowerBound, to: range.upperBound, limit: limit)
            // The location's object as /api/0/locations writes it, plus the two fields only
            // rejected points have; the lists are short, so reading the bytes back costs nothing.
            let encoder = RecorderEncoder(format: .json, fields: nil)
            let data: [[String: Any]] = try rejected.map { item in
                let bytes = encoder.object(item.location)
                var object = try JSONSerialization.jsonObject(with: Data(bytes.readableBytesView)) as? [String: Any] ?? [:]
                object["reason"] = item.reason
                object["received_at"] = item.location.receivedAt
                return object
            }
            return try outlierJSON(["count": data.count, "data": data, "status": 200])
        }
        router.post("/api/0/rejected/restore") { request, context in
            let query = RecorderQuery.parameters(of: request)
            let member = try await member(of: request, context)
            let range = try RecorderQuery.targets(query, now: Date(), action: "restore")
            let actor = switch context.viewer {
            case .account(let account): account.name
            case .open, .nobody: "open"
            }
            let now = Date()
            let result = try await history.restoreRejected(
                of: member, from: range.lowerBound, to: range.upperBound, notAfter: Int(now.timeIntervalSince1970),
                actor: actor, client: context.clientAddress, at: now.timeIntervalSince1970)
            context.logger.notice("Rejected locations restored into the history.", metadata: [
                "whereabouts.actor": "\(actor)", "whereabouts.client": "\(context.clientAddress)", "whereabouts.member": "\(member)",
                "whereabouts.from": "\(range.lowerBound)", "whereabouts.to": "\(range.upperBound)",
                "whereabouts.restored": "\(result.restored)", "whereabouts.still_in_future": "\(result.stillInFuture)",
            ])
            return try JSONBody.response(result)
        }
    }

    private static func outlierJSON(_ object: Any) throws -> Response {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return Response(
            status: .ok,
            headers: [.contentType: ResponseHeaderValues.json, .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
