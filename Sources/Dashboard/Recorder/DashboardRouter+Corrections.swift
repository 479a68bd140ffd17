import Foundation
import Hummingbird
import Subscriber

extension DashboardRouter {
    /// Adds corrections of the history (docs/recorder-api.md, "Corrections"):
    /// - `DELETE /api/0/locations?user=&device=&tst=N` removes one location;
    ///   `...&from=&to=` (both required: nothing is removed by default) a range. Allowed to whoever
    ///   may read that history (the member themself, an admin of a circle that shows them exactly;
    ///   anyone in the open mode); others get 404 as for an unknown device. Answers
    ///   `{"deleted": n, ...}` and records it in the audit log.
    /// - `GET /api/0/audit` the audit log, newest first, of the members the caller may read.
    static func addCorrectionRoutes(to router: Router<DashboardRequestContext>, history: HistoryStore, source: CircleViewStore) {
        router.delete("/api/0/locations") { request, context in
            let query = RecorderQuery.parameters(of: request)
            let user = try RecorderQuery.required(query, "user")
            let device = try RecorderQuery.required(query, "device")
            let range = try RecorderQuery.targets(query, now: Date(), action: "delete")
            let member = MemberID(user: user, device: device)
            guard await RecorderScope.of(context.viewer, in: source).contains(member), try await history.devices(of: user).contains(device) else {
                throw APIError(status: .notFound, code: "device_not_found", message: "No locations are stored for '\(user.prefix(64))/\(device.prefix(64))'.")
            }
            let actor = switch context.viewer {
            case .account(let account): account.name
            case .open, .nobody: "open"
            }
            let entry = try await history.deleteLocations(
                of: member, from: range.lowerBound, to: range.upperBound, actor: actor, client: context.clientAddress,
                at: Date().timeIntervalSince1970)
            context.logger.notice("History locations deleted.", metadata: [
                "whereabouts.actor": "\(actor)", "whereabouts.client": "\(context.clientAddress)", "whereabouts.member": "\(user)/\(device)",
                "whereabouts.from": "\(range.lowerBound)", "whereabouts.to": "\(range.upperBound)", "whereabouts.removed": "\(entry.removed)",
            ])
            return try JSONBody.response(entry)
        }
        router.get("/api/0/audit") { _, context in
            let scope = await RecorderScope.of(context.viewer, in: source)
            let entries = try await history.auditLog().filter { scope.contains(MemberID(user: $0.user, device: $0.device)) }
            return try JSONBody.response(AuditBody(results: entries))
        }
    }

    private struct AuditBody: Encodable {
        var results: [HistoryAuditEntry]
    }
}
