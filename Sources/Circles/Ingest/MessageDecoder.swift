import Foundation
import WhereaboutsCore

/// Turns a raw payload into a validated ``InboundMessage`` or a ``RejectionReason``.
///
/// Checks: size limit, JSON object, `_type`, JSON types of every known key, required keys,
/// ranges (finite numbers, latitude and longitude, `tst` after 2001 and not in the future beyond
/// the tolerance, accuracy, battery, course, velocity, `ms`), and string lengths. A value type;
/// each ingest task owns its own.
public struct MessageDecoder: Sendable {
    /// The largest payload accepted, in bytes.
    public var maxPayloadBytes: Int
    /// How far in the future a timestamp may lie, in seconds.
    public var futureTolerance: Int

    /// The earliest `tst` accepted: 2001-09-09 (epoch 1,000,000,000). Rejects `tst` 0 and
    /// milliseconds-vs-seconds mix-ups in the other direction are caught by the future check.
    public static let earliestTimestamp = 1_000_000_000

    /// Creates a decoder with the limits of `settings`.
    public init(settings: ViewSettings = ViewSettings()) {
        maxPayloadBytes = settings.maxPayloadBytes
        futureTolerance = settings.futureTolerance
    }

    /// Decodes and validates `payload` received at `now`.
    public func decode(_ payload: some Collection<UInt8>, now: Date) throws(RejectionReason) -> InboundMessage {
        guard payload.count <= maxPayloadBytes else {
            throw .oversize(bytes: payload.count, limit: maxPayloadBytes)
        }
        let wire: WirePayload
        do {
            wire = try payload.withContiguousStorageIfAvailable { try WirePayload(parsing: $0) }
                ?? Array(payload).withUnsafeBufferPointer { try WirePayload(parsing: $0) }
        } catch let reason as RejectionReason {
            throw reason
        } catch {
            throw .malformedJSON
        }
        guard let type = wire.type else { throw .missingType }
        let nowSeconds = Int(now.timeIntervalSince1970)
        switch type {
        case "location":
            return .location(try location(wire, now: nowSeconds))
        case "lwt" where wire.state == nil:
            return .lastWill(tst: try optionalTimestamp(wire.tst, "tst", now: nowSeconds) ?? nowSeconds)
        case "lwt", "presence":  // presence: `lwt` with a `state` (issue 10), or the older `presence`
            guard let state = wire.state else { throw .missingField("state") }
            guard state == "online" || state == "offline" else { throw .outOfRange("state") }
            let tst = try optionalTimestamp(wire.tst, "tst", now: nowSeconds) ?? nowSeconds
            let since = try optionalTimestamp(wire.since, "since", now: nowSeconds)
            return .presence(online: state == "online", since: since, tst: tst)
        case "transition":
            guard let event = wire.event else { throw .missingField("event") }
            guard event == "enter" || event == "leave" else { throw .outOfRange("event") }
            guard let tst = try optionalTimestamp(wire.tst, "tst", now: nowSeconds) else { throw .missingField("tst") }
            return .transition(event: event, tst: tst)
        case "card":
            if let name = wire.name, name.utf8.count > 200 { throw .outOfRange("name") }
            return .card(name: wire.name)
        default:
            guard type.utf8.count <= 32 else { throw .outOfRange("_type") }
            return .ignored(type: type)
        }
    }

    private func location(_ wire: WirePayload, now: Int) throws(RejectionReason) -> LocationMessage {
        guard let lat = wire.lat else { throw .missingField("lat") }
        guard let lon = wire.lon else { throw .missingField("lon") }
        guard let tst = try optionalTimestamp(wire.tst, "tst", now: now) else { throw .missingField("tst") }
        guard lat.isFinite, (-90...90).contains(lat) else { throw .outOfRange("lat") }
        guard lon.isFinite, (-180...180).contains(lon) else { throw .outOfRange("lon") }
        let createdAt = try optionalTimestamp(wire.createdAt, "created_at", now: now)
        if let tid = wire.tid, tid.utf8.count > 8 { throw .outOfRange("tid") }
        if let t = wire.t, t.utf8.count > 8 { throw .outOfRange("t") }
        let ve = try optionalVelocity(wire.ve, "ve")
        let vn = try optionalVelocity(wire.vn, "vn")
        return LocationMessage(
            tid: wire.tid ?? "",
            tst: tst,
            lat: lat,
            lon: lon,
            acc: try optionalInt(wire.acc, "acc", in: 0...1_000_000) ?? 0,
            alt: try optionalInt(wire.alt, "alt", in: -20_000...100_000),
            vac: try optionalInt(wire.vac, "vac", in: 0...1_000_000),
            vel: try optionalInt(wire.vel, "vel", in: 0...5_000),
            cog: try optionalInt(wire.cog, "cog", in: 0...360).map { $0 % 360 },
            batt: try optionalInt(wire.batt, "batt", in: 0...100),
            bs: try optionalInt(wire.bs, "bs", in: 0...3),
            t: wire.t,
            m: try optionalInt(wire.m, "m", in: 0...10),
            createdAt: createdAt,
            ve: ve,
            vn: vn,
            ms: try optionalInt(wire.ms, "ms", in: 1...86_400)
        )
    }

    private func optionalTimestamp(_ value: Double?, _ key: String, now: Int) throws(RejectionReason) -> Int? {
        guard let value else { return nil }
        guard value.isFinite, value >= Double(Self.earliestTimestamp), value < 4_000_000_000 else {
            throw .outOfRange(key)
        }
        let seconds = Int(value.rounded(.down))
        guard seconds <= now + futureTolerance else { throw .futureTimestamp(tst: seconds) }
        return seconds
    }

    private func optionalInt(_ value: Double?, _ key: String, in range: ClosedRange<Int>) throws(RejectionReason) -> Int? {
        guard let value else { return nil }
        guard value.isFinite, value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
            throw .outOfRange(key)
        }
        return Int(value.rounded())
    }

    private func optionalVelocity(_ value: Double?, _ key: String) throws(RejectionReason) -> Double? {
        guard let value else { return nil }
        guard value.isFinite, abs(value) <= 1_000 else { throw .outOfRange(key) }
        return value
    }
}
