import Foundation
import Logging
import Hummingbird
import Provisioning

extension DashboardRouter {
    /// The most bytes an invite request body may have.
    static let maxInviteBody = 4_096

    /// Adds the invite dialog's routes (docs/dashboard.md, "Invites"), which run the code of
    /// `whereabouts-sub invite` (``Inviter``) through `desk`:
    /// - `GET /api/invites`: `{"enabled", "circles"}`, the circles the caller may invite to (the
    ///   circles its account administers; none in the open mode or without `desk`).
    /// - `POST /api/circles/<id>/invites` with JSON `{"user", "device", "tid"?}`: adds the member
    ///   to the circle when it does not list them, makes or reuses their broker account and
    ///   secret, and answers the app's configuration as the `owntracks:///config?inline=` link,
    ///   the `.otrc` text and the QR code (PNG, base64).
    /// - `DELETE /api/circles/<id>/invites/<user>/<device>`: revokes the member (every circle,
    ///   their account and secret), answering `{"done": [lines]}`.
    ///
    /// Only a logged-in account that administers circle `<id>` may invite or revoke there, and
    /// only a member who is in no circle it does not administer (an invite hands out the device's
    /// password and secret; a revoke takes the member out of every circle). Besides the
    /// `Host`/`Origin` check every route has, the POST must carry `Content-Type:
    /// application/json`, which a page of another site cannot send without a CORS preflight
    /// (answered only for `--cors-origin`, never with cookies).
    static func addInviteRoutes(to router: Router<DashboardRequestContext>, desk: InviteDesk?) {
        router.get("/api/invites") { _, context in
            guard desk != nil, case .account(let account) = context.viewer else {
                return try JSONBody.response(InviteCircles(enabled: desk != nil, circles: []))
            }
            return try JSONBody.response(InviteCircles(enabled: true, circles: account.admin.sorted()))
        }
        router.post("/api/circles/:id/invites") { request, context in
            let circle = try context.parameters.require("id")
            let inviteDesk = try InviteRules.desk(desk)
            let account = try InviteRules.admin(of: circle, viewer: context.viewer)
            guard let type = request.headers[.contentType], type.lowercased().hasPrefix("application/json") else {
                throw APIError(status: .unsupportedMediaType, code: "json_required", message: "Send the invite as JSON {\"user\", \"device\"} with Content-Type: application/json.")
            }
            let body = try await request.body.collect(upTo: maxInviteBody)
            let form = try InviteRules.form(Data(buffer: body))
            try await InviteRules.checkOtherCircles(user: form.user, device: form.device, admin: account, desk: inviteDesk, logger: context.logger)
            let invitation: Invitation
            do {
                invitation = try await inviteDesk.invite(user: form.user, device: form.device, circle: circle, trackerID: form.tid)
            } catch {
                throw InviteRules.failure(error, doing: "invite", member: "\(form.user)/\(form.device)", logger: context.logger)
            }
            let png: Data
            do { png = try QRCode(invitation.configuration.link).png() } catch {
                throw InviteRules.failure(error, doing: "draw the QR code of the invite", member: "\(form.user)/\(form.device)", logger: context.logger)
            }
            context.logger.notice("Invite made from the dashboard.", metadata: [
                "whereabouts.actor": "\(account.name)", "whereabouts.client": "\(context.clientAddress)",
                "whereabouts.member": "\(form.user)/\(form.device)", "whereabouts.circle": "\(circle)",
            ])
            return try JSONBody.response(InviteAnswer(invitation, circle: circle, png: png))
        }
        router.delete("/api/circles/:id/invites/:user/:device") { _, context in
            let circle = try context.parameters.require("id")
            let user = try context.parameters.require("user")
            let device = try context.parameters.require("device")
            let inviteDesk = try InviteRules.desk(desk)
            let account = try InviteRules.admin(of: circle, viewer: context.viewer)
            let listed: [String]
            do { listed = try await inviteDesk.circles(listing: user, device: device) } catch {
                throw InviteRules.failure(error, doing: "revoke", member: "\(user)/\(device)", logger: context.logger)
            }
            guard listed.contains(circle) else { throw APIError.memberNotFound(circle: circle, user: user, device: device) }
            try await InviteRules.checkOtherCircles(user: user, device: device, admin: account, desk: inviteDesk, logger: context.logger)
            let done: [String]
            do { done = try await inviteDesk.revoke(user: user, device: device) } catch {
                throw InviteRules.failure(error, doing: "revoke", member: "\(user)/\(device)", logger: context.logger)
            }
            context.logger.notice("Invite revoked from the dashboard.", metadata: [
                "whereabouts.actor": "\(account.name)", "whereabouts.client": "\(context.clientAddress)",
                "whereabouts.member": "\(user)/\(device)", "whereabouts.circle": "\(circle)",
            ])
            return try JSONBody.response(RevokeAnswer(done: done))
        }
    }

    private struct InviteCircles: Encodable {
        var enabled: Bool
        var circles: [String]
    }

    private struct RevokeAnswer: Encodable {
        var done: [String]
    }

    /// What the dialog shows: the scan, the link, the file, and what was made.
    private struct InviteAnswer: Encodable {
        var user, device, circle, account, link, otrc, png, file: String
        var circles, joined, trees: [String]
        var secretGenerated: Bool

        init(_ invitation: Invitation, circle: String, png: Data) {
            user = invitation.member.user
            device = invitation.member.device
            self.circle = circle
            account = invitation.configuration.username
            link = invitation.configuration.link
            otrc = String(decoding: invitation.configuration.otrc, as: UTF8.self)
            self.png = png.base64EncodedString()
            file = "\(user)-\(device).otrc"
            circles = invitation.circles
            joined = invitation.joined
            trees = invitation.trees
            secretGenerated = invitation.secretGenerated
        }
    }
}

/// Who may invite whom from the dashboard, and the answers when they may not.
enum InviteRules {
    /// What the dialog sends.
    struct Form: Decodable {
        var user: String
        var device: String
        var tid: String?
    }

    /// The desk, or 404 when the dashboard was started without invites.
    static func desk(_ desk: InviteDesk?) throws -> InviteDesk {
        guard let desk else {
            throw APIError(
                status: .notFound, code: "invites_disabled",
                message: "This dashboard makes no invites: start whereabouts-sub with --invite-accounts (docs/owntracks.md, \"Add a phone\"), or use `whereabouts-sub invite`.")
        }
        return desk
    }

    /// The viewer's account when it administers `circle`; 403 otherwise (the same answer whether
    /// or not the circle exists).
    static func admin(of circle: String, viewer: Viewer) throws -> Account {
        switch viewer {
        case .open, .nobody:
            throw APIError(
                status: .forbidden, code: "invite_needs_login",
                message: "Invites are made by a circle's admin: start whereabouts-sub with --users FILE, and list the circle under the account's admin: in that file.")
        case .account(let account):
            guard account.admin.contains(circle) else {
                throw APIError(
                    status: .forbidden, code: "not_circle_admin",
                    message: "Only an admin of circle '\(circle.prefix(64))' may invite to it. Ask the operator to add it to the admin: list of '\(account.name)' in the users file.")
            }
            return account
        }
    }

    /// The dialog's fields, checked: user and device become topic levels
    /// (`owntracks/<user>/<device>`), the tracker id is what the apps accept.
    static func form(_ body: Data) throws -> Form {
        guard var form = try? JSONDecoder().decode(Form.self, from: body) else {
            throw APIError(status: .badRequest, code: "bad_invite", message: "Send a JSON object {\"user\": ..., \"device\": ..., \"tid\": ... (optional)}.")
        }
        form.user = form.user.trimmingCharacters(in: .whitespaces)
        form.device = form.device.trimmingCharacters(in: .whitespaces)
        for (value, what) in [(form.user, "user name"), (form.device, "device name")] where !isName(value) {
            throw APIError(
                status: .badRequest, code: "bad_invite",
                message: "The \(what) '\(value.prefix(64))' must be 1 to 64 letters, digits, '-', '_' or '.': it becomes a topic level (owntracks/<user>/<device>).")
        }
        if let tid = form.tid?.trimmingCharacters(in: .whitespaces) {
            form.tid = tid.isEmpty ? nil : tid
            if let tid = form.tid, !((1...2).contains(tid.count) && tid.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })) {
                throw APIError(
                    status: .badRequest, code: "bad_invite",
                    message: "The tracker id '\(tid.prefix(8))' must be one or two letters or digits (the apps refuse others), or empty for the default.")
            }
        }
        return form
    }

    /// Refuses a member who is also in a circle `admin` does not administer.
    static func checkOtherCircles(user: String, device: String, admin: Account, desk: InviteDesk, logger: Logger) async throws {
        let listed: [String]
        do { listed = try await desk.circles(listing: user, device: device) } catch {
            throw failure(error, doing: "read the circles file", member: "\(user)/\(device)", logger: logger)
        }
        let others = listed.filter { !admin.admin.contains($0) }
        guard others.isEmpty else {
            throw APIError(
                status: .forbidden, code: "member_in_other_circles",
                message: "\(user)/\(device) is also a member of \(others.count) circle(s) you do not administer, and an invite or revoke acts for all of them. An admin of every one of those circles, or the operator with `whereabouts-sub invite`, must do it.")
        }
    }

    /// The answer to a failed invite or revoke: the provisioning's own sentence (422), or what
    /// went wrong on the way (502: the broker or a file). Logged as an error too: a failure after
    /// the circles file was written leaves the member listed without a working account, which the
    /// operator must see even when the admin closes the dialog.
    static func failure(_ error: any Error, doing what: String, member: String, logger: Logger) -> APIError {
        logger.error("Could not \(what) from the dashboard.", metadata: [
            "whereabouts.member": "\(member)", "whereabouts.error": "\(error)",
        ])
        if let error = error as? ProvisioningError {
            return APIError(status: .unprocessableContent, code: "invite_failed", message: "Could not \(what): \(error.description)")
        }
        return APIError(status: .badGateway, code: "invite_failed", message: "Could not \(what): \(error). Check that the broker runs and the account files are writable, then try again.")
    }

    private static func isName(_ text: String) -> Bool {
        (1...64).contains(text.count) && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
    }
}
