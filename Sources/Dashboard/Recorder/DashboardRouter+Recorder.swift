import Foundation
import Hummingbird
import Subscriber

extension DashboardRouter {
    /// The version `/api/0/version` reports.
    static let recorderAPIVersion = "whereabouts-0.1"

    /// Adds the OwnTracks Recorder's read API over `history` (docs/recorder-api.md), seen through
    /// `scope`:
    /// - `GET /api/0/version`: `{"version": …}`.
    /// - `GET /api/0/list`: `{"results": [users]}`; with `user`, that user's devices.
    /// - `GET /api/0/last`: an array of each device's newest location (`user`, `device`, `fields`).
    /// - `GET /api/0/locations`: `{"count", "data", "status": 200}` for `user` and `device`
    ///   between `from` and `to` (UTC, default the last six hours), sorted by `tst`, at most `limit`;
    ///   `format=csv|gpx|geojson|linestring` as the Recorder writes them (``RecorderFormat``),
    ///   streamed page by page (``RecorderStream``).
    /// Each request sees the history its viewer may read (``ViewerAccess/history``); members
    /// outside it answer exactly like unknown ones (404).
    static func addRecorderRoutes(to router: Router<DashboardRequestContext>, history: HistoryStore, source: CircleViewStore) {
        router.get("/api/0/version") { _, _ in
            try jsonResponse(["version": recorderAPIVersion])
        }
        router.get("/api/0/list") { request, context in
            let scope = await RecorderScope.of(context.viewer, in: source)
            let query = RecorderQuery.parameters(of: request)
            guard let user = query["user"], !user.isEmpty else {
                let users = try await history.users()
                let visible = try await visibleUsers(users, history: history, scope: scope)
                return try jsonResponse(["results": visible])
            }
            let devices = try await history.devices(of: user).filter { scope.contains(MemberID(user: user, device: $0)) }
            guard !devices.isEmpty else { throw unknownUser(user) }
            return try jsonResponse(["results": devices])
        }
        router.get("/api/0/last") { request, context in
            let scope = await RecorderScope.of(context.viewer, in: source)
            let query = RecorderQuery.parameters(of: request)
            let user = query["user"].flatMap { $0.isEmpty ? nil : $0 }
            let device = user == nil ? nil : query["device"].flatMap { $0.isEmpty ? nil : $0 }
            let fields = RecorderLocation.fieldList(query["fields"])
            let extras = await recorderExtras(source: source, fields: fields)
            return jsonResponse(try await lastArray(history: history, user: user, device: device, fields: fields, extras: extras, scope: scope))
        }
        router.get("/api/0/locations") { request, context in
            let scope = await RecorderScope.of(context.viewer, in: source)
            let query = RecorderQuery.parameters(of: request)
            let formatName = query["format"] ?? "json"
            guard let format = RecorderFormat(rawValue: formatName) else {
                throw APIError(
                    status: .badRequest, code: "bad_format",
                    message: "'format' must be one of \(RecorderFormat.allCases.map(\.rawValue).joined(separator: ", ")); got '\(formatName.prefix(20))'.")
            }
            let user = try RecorderQuery.required(query, "user")
            let device = try RecorderQuery.required(query, "device")
            let range = try RecorderQuery.range(query, now: Date())
            let limit = try RecorderQuery.limit(query)
            let fields = RecorderLocation.fieldList(query["fields"])
            let member = MemberID(user: user, device: device)
            guard scope.contains(member), try await history.devices(of: user).contains(device), let key = try await history.key(of: member) else {
                throw APIError(status: .notFound, code: "device_not_found", message: "No locations are stored for '\(user.prefix(64))/\(device.prefix(64))'.")
            }
            return RecorderStream(history: history, key: key, member: member, range: range, limit: limit, format: format, fields: fields).response()
        }
    }

    /// The `/api/0/last` array: each member's last location the caller may see, ordered by user
    /// and device. Without a `user`, the members are split in two halves read and encoded side by
    /// side (two cores; 10,000 members in about 20 ms, BENCHMARKS.md "Recorder API").
    /// Each location ends with what the Recorder merges in (``RecorderExtras``).
    private static func lastArray(
        history: HistoryStore, user: String?, device: String?, fields: [String]?, extras: RecorderExtras, scope: RecorderScope
    ) async throws -> ByteBuffer {
        let encoder = RecorderEncoder(format: .json, fields: fields)
        @Sendable func objects(_ users: HistoryUserRange) async throws(HistoryError) -> (ByteBuffer, Int) {
            try await history.scanLastLocations(user: user, device: device, users: users) { rows throws(HistoryError) in
                try encoder.objects(&rows, extras: extras) { scope.contains($0.memberID) }
            }
        }
        let parts: [(ByteBuffer, Int)]
        if user == nil, let pivot = try await history.lastLocationsPivot() {
            async let first = objects(.before(pivot))
            let second = try await objects(.from(pivot))
            parts = [try await first, second]
        } else {
            parts = [try await objects(.all)]
        }
        var array = ByteBuffer(string: "[")
        array.reserveCapacity(2 + parts.reduce(0) { $0 + $1.0.readableBytes })
        for (var part, count) in parts where count > 0 {
            if array.readableBytes == 1 { part.moveReaderIndex(forwardBy: 1) }  // no comma before the first
            array.writeBuffer(&part)
        }
        array.writeStaticString("]")
        return array
    }

    /// The keys the Recorder merges into `/last` locations (card, regions, the live fix's extra
    /// keys), from the subscriber's store.
    static func recorderExtras(source: CircleViewStore, fields: [String]?) async -> RecorderExtras {
        RecorderExtras(await source.details(), fields: fields)
    }

    private static func visibleUsers(_ users: [String], history: HistoryStore, scope: RecorderScope) async throws -> [String] {
        var visible: [String] = []
        for user in users where try await history.devices(of: user).contains(where: { scope.contains(MemberID(user: user, device: $0)) }) {
            visible.append(user)
        }
        return visible
    }

    private static func unknownUser(_ user: String) -> APIError {
        APIError(status: .notFound, code: "user_not_found", message: "No locations are stored for the user '\(user.prefix(64))'.")
    }

    /// A JSON response of `body`, JSON text already.
    private static func jsonResponse(_ body: ByteBuffer) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: ResponseHeaderValues.json, .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: body))
    }

    /// A JSON response of a Foundation object (arrays and dictionaries of strings and numbers).
    private static func jsonResponse(_ object: Any) throws -> Response {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return Response(
            status: .ok,
            headers: [.contentType: ResponseHeaderValues.json, .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
