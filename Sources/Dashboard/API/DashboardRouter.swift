import Subscriber
import Hummingbird
import HummingbirdWebSocket
import Logging

/// Builds the dashboard's routes over a view source.
enum DashboardRouter {
    /// Builds the HTTP router: the page, the JSON API and the health check. `logger` tells at
    /// start whether the map library was found.
    ///
    /// Routes (the WebSocket ones are upgraded by a second router, see `DashboardApplication`):
    /// - `GET /` the page and `GET /assets/...` its files (Page/DashboardRouter+Page.swift);
    ///   `GET /healthz` `{"status":"ok"}`.
    /// - `GET /api/circles` every circle with its member and status counts.
    /// - `GET /api/circles/<id>` the circle's view, exactly as the subscriber publishes it.
    /// - `GET /api/circles/<id>/members/<user>/<device>/trail` one member's trail.
    /// - WebSocket `/ws` (every circle) and `/api/circles/<id>/ws` (one circle): the current
    ///   views at once, then each changed view.
    /// Unknown circles, members and paths answer 404 with a JSON `{"error","message"}` body; a
    /// request whose `Host` or `Origin` is not this dashboard's answers 403
    /// (``DashboardConfiguration/allowedHosts``).
    static func build(
        source: CircleViewStore,
        configuration: DashboardConfiguration,
        logger: Logger
    ) -> Router<DashboardRequestContext> {
        let router = Router(context: DashboardRequestContext.self)
        router.middlewares.add(LogRequestsMiddleware(.debug))
        router.middlewares.add(JSONNotFoundMiddleware())
        router.middlewares.add(RequestOriginMiddleware(policy: configuration.originPolicy))
        router.middlewares.add(CrossOriginMiddleware(policy: configuration.crossOriginPolicy))  // --cors-origin
        router.middlewares.add(LoginMiddleware(authenticator: configuration.login))

        addLoginRoutes(to: router, authenticator: configuration.login, source: source, title: configuration.title)  // Login/
        addPageRoutes(to: router, page: DashboardPage(configuration: configuration, logger: logger))  // Page/DashboardRouter+Page.swift
        router.get("/healthz") { _, _ in
            try JSONBody.response(["status": "ok"])
        }
        router.get("/api/circles") { _, context in
            let views = await source.views()
            let access = ViewerAccess.of(context.viewer, views: views)
            return try JSONBody.response(CircleList(circles: views.filter { access.canSee(circle: $0.circle.id) }.map(CircleListEntry.init)))
        }
        router.get("/api/circles/:id") { _, context in
            let id = try context.parameters.require("id")
            guard let view = await source.view(id: id), try await canSee(circle: id, context: context, source: source) else {
                throw APIError.circleNotFound(id)
            }
            return try JSONBody.response(view)
        }
        router.get("/api/circles/:id/members/:user/:device/trail") { _, context in
            let member = try await visibleMember(context: context, source: source)
            return try JSONBody.response(MemberTrail(circle: member.circle, user: member.user, device: member.device, trail: member.trail))
        }
        addInviteRoutes(to: router, desk: configuration.invites)  // the invite dialog (Invite/)
        addSubscriberRoutes(to: router, source: source, login: configuration.login)  // /metrics and card faces (SubscriberRoutes.swift)
        if let history = configuration.history {  // Recorder/
            addRecorderRoutes(to: router, history: history, source: source)
            addCorrectionRoutes(to: router, history: history, source: source)
            addOutlierRoutes(to: router, history: history, source: source)
        }

        return router
    }

    /// Builds the router that decides WebSocket upgrades: `/ws` and `/api/circles/<id>/ws`
    /// (404 for an unknown circle, 403 for a foreign `Host` or `Origin`), served by `broadcaster`;
    /// a graceful shutdown closes them, counted in `shutdown`.
    static func webSocketRouter(
        broadcaster: ViewBroadcaster,
        source: CircleViewStore,
        configuration: DashboardConfiguration,
        maxFrameSize: Int,
        shutdown: ShutdownTally
    ) -> Router<DashboardRequestContext> {
        let router = Router(context: DashboardRequestContext.self)
        // A refused upgrade falls through to the HTTP router, whose same check answers 403.
        router.middlewares.add(RequestOriginMiddleware(policy: configuration.originPolicy))
        router.middlewares.add(LoginMiddleware(authenticator: configuration.login))
        let pusher = ViewPusher(broadcaster: broadcaster, maxFrameSize: maxFrameSize)
        router.ws("/ws") { _, _ in
            .upgrade()
        } onUpgrade: { inbound, outbound, context in
            context.requestContext.releaseUpgradeHandler()
            // The circles it may see when it connects (every circle in the open mode).
            let circles = ViewerAccess.of(context.requestContext.viewer, views: await source.views()).circles
            let logger = context.logger
            try await WebSocketAccess.run(
                context: context.requestContext, authenticator: configuration.login, outbound: outbound, shutdown: shutdown
            ) {
                try await pusher.push(circles: circles, inbound: inbound, outbound: outbound, logger: logger)
            }
        }
        router.ws("/api/circles/:id/ws") { _, context in
            let id = try context.parameters.require("id")
            guard await broadcaster.hasCircle(id), try await canSee(circle: id, context: context, source: source) else {
                throw APIError.circleNotFound(id)
            }
            return .upgrade()
        } onUpgrade: { inbound, outbound, context in
            context.requestContext.releaseUpgradeHandler()
            let id = context.requestContext.parameters.get("id")
            let logger = context.logger
            try await WebSocketAccess.run(
                context: context.requestContext, authenticator: configuration.login, outbound: outbound, shutdown: shutdown
            ) {
                try await pusher.push(circles: id.map { [$0] } ?? [], inbound: inbound, outbound: outbound, logger: logger)
            }
        }
        if let history = configuration.history {
            addRecorderWebSocket(to: router, history: history, source: source, authenticator: configuration.login, shutdown: shutdown)
        }  // Recorder/
        return router
    }

    /// Whether the request's viewer may see circle `id` (an account: one it belongs to).
    static func canSee(circle id: String, context: DashboardRequestContext, source: CircleViewStore) async throws -> Bool {
        switch context.viewer {
        case .open: true
        case .nobody: false
        case .account: ViewerAccess.of(context.viewer, views: await source.views()).canSee(circle: id)
        }
    }

    /// The member a `/api/circles/<id>/members/<user>/<device>/...` request names, with its trail:
    /// `circleNotFound` when there is no such circle or the viewer may not see it,
    /// `memberNotFound` when the device is not one of its members (both 404).
    static func visibleMember(
        context: DashboardRequestContext, source: CircleViewStore
    ) async throws -> (circle: String, user: String, device: String, trail: [TrailPoint]) {
        let id = try context.parameters.require("id")
        let user = try context.parameters.require("user")
        let device = try context.parameters.require("device")
        guard await source.view(id: id) != nil, try await canSee(circle: id, context: context, source: source) else {
            throw APIError.circleNotFound(id)
        }
        guard let trail = await source.trail(circle: id, user: user, device: device) else {
            throw APIError.memberNotFound(circle: id, user: user, device: device)
        }
        return (id, user, device, trail)
    }
}

/// The body of `GET /api/circles/<id>/members/<user>/<device>/trail`.
struct MemberTrail: Codable, Sendable {
    var circle: String
    var user: String
    var device: String
    var trail: [TrailPoint]
}

/// Answers requests no route matched with a JSON 404 instead of an empty body.
struct JSONNotFoundMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            throw APIError.routeNotFound(request.uri.path)
        }
    }
}
