import Foundation
import WhereaboutsCore

/// Turns a raw payload into a validated ``InboundMessage`` or a ``MessageRejectionReason``.
///
/// Only what makes a message meaningless rejects it: the size limit (an attached image or an
/// encrypted message's ciphertext does not count against it; see ``decodeReporting(_:now:limit:)``), not a JSON object, no
/// `_type`, and the required keys of its type (`lat`, `lon`, `tst` of a location: missing, of the
/// wrong type, out of range or too far in the future). Informational fields (`acc`, `alt`, `vac`,
/// `vel`, `cog`, `batt`, `bs`, `m`, `t`, `tid`, `created_at`, `ve`/`vn`, `ms`, a card's face...)
/// that are out of range or of the wrong type are dropped and listed in
/// ``Decoded/droppedFields``, never rejecting the fix (an app in quiet mode sends `"m":-1`).
/// Numbers may come as numeric strings. A value type; each ingest task owns its own.
package struct MessageDecoder: Sendable {
    /// The largest payload accepted, in bytes (cards on `<base>/info` have their own limit).
    package var maxPayloadBytes: Int
    /// How far in the future a timestamp may lie, in seconds.
    package var futureTolerance: Int
    /// The outlier rules ingest applies to a decoded location against the member's live fix.
    var outliers: OutlierRules

    /// The earliest `tst` accepted: 2001-09-09 (epoch 1,000,000,000). Rejects `tst` 0 and
    /// milliseconds-vs-seconds mix-ups in the other direction are caught by the future check.
    package static let earliestTimestamp = 1_000_000_000
    /// The largest card face accepted, in bytes once decoded: 256 KiB.
    static let maxFaceBytes = 256 * 1024
    /// The payload limit on `<base>/info`, where cards carry their face in base64: room for a
    /// 256 KiB face (4/3 of it) and the rest of the card.
    static let maxCardPayloadBytes = (maxFaceBytes + 2) / 3 * 4 + 8 * 1024
    /// The payload limit on `<base>/info` when the card comes encrypted: the largest card sealed
    /// (24-byte nonce and 16-byte tag), in base64 again, inside `{"_type":"encrypted","data":…}`.
    static let maxEncryptedCardPayloadBytes = (maxCardPayloadBytes + 40 + 2) / 3 * 4 + 64

    /// A decoded message and the informational fields dropped from it.
    package struct Decoded: Sendable, Hashable {
        /// The message.
        package var message: InboundMessage
        /// Keys whose value was out of range or of the wrong type, dropped (counted by the store).
        package var droppedFields: [String]
        /// The receipt stamp the publisher added, if any (docs/receipts.md).
        var stamp: ReportStamp? = nil
    }

    /// Creates a decoder with the limits of `settings`.
    package init(settings: ViewSettings = ViewSettings()) {
        maxPayloadBytes = settings.maxPayloadBytes
        futureTolerance = settings.futureTolerance
        outliers = OutlierRules(settings: settings)
    }

    /// Decodes and validates `payload` received at `now`, dropping bad informational fields.
    package func decode(_ payload: some Collection<UInt8>, now: Date) throws(MessageRejectionReason) -> InboundMessage {
        try decodeReporting(payload, now: now).message
    }

    /// The ceiling no payload may pass, whatever it carries: room for a 256 KiB image in base64,
    /// encrypted and in base64 again (the same as an encrypted card's, about 470 KB). A payload
    /// over the limit (``maxPayloadBytes``) but under the ceiling is read only when what takes it
    /// over is bulk the apps attach: the photo of an iOS point of interest (`image`), or the
    /// ciphertext of an encrypted message (`data`, whose plaintext is then held to the same rule).
    static let maxBulkPayloadBytes = maxEncryptedCardPayloadBytes

    /// Decodes and validates `payload` received at `now`; `limit` overrides ``maxPayloadBytes``.
    ///
    /// The size rule: at most `limit` bytes, not counting an attached image or an encrypted
    /// message's ciphertext, and at most ``maxBulkPayloadBytes`` in all. An iOS location with a
    /// point-of-interest photo (owntracks/ios `OwnTracking.m` `waypointAsJSON`: `image`, the photo
    /// in base64, and `imagename`) is 40 KB and more: over the default 16 KiB, and often the
    /// retained message, so rejecting it lost the member's position until the next report.
    func decodeReporting(_ payload: some Collection<UInt8>, now: Date, limit: Int? = nil) throws(MessageRejectionReason) -> Decoded {
        let limit = limit ?? maxPayloadBytes
        let ceiling = max(limit, Self.maxBulkPayloadBytes)
        guard payload.count <= ceiling else { throw .oversize(bytes: payload.count, limit: ceiling) }
        // The payload is parsed straight into the reader that validates it: no copy of its
        // forty-odd optional fields on the way (docs/subscriber.md, "What ingest does per message").
        var fields = FieldReader(now: Int(now.timeIntervalSince1970), futureTolerance: futureTolerance)
        do {
            let contiguous: Void? = try payload.withContiguousStorageIfAvailable { try Self.read($0, limit: limit, into: &fields.wire) }
            if contiguous == nil {
                try Array(payload).withUnsafeBufferPointer { try Self.read($0, limit: limit, into: &fields.wire) }
            }
        } catch let reason as MessageRejectionReason {
            throw reason
        } catch {
            throw .malformedJSON
        }
        // What takes a payload past the limit must be a location's image or an encrypted message's ciphertext.
        let bulk = fields.wire.type == "location" ? fields.wire.imageBytes ?? 0 : fields.wire.type == "encrypted" ? fields.wire.dataBytes : 0
        guard payload.count - bulk <= limit else { throw .oversize(bytes: payload.count, limit: limit) }
        if fields.wire.wrongTypes.contains("_type") { throw .wrongType("_type") }
        guard let type = fields.wire.type else { throw .missingType }
        let stamp = ReportStamp(fields.wire)
        let message = try fields.message(type: type)
        return Decoded(message: message, droppedFields: fields.dropped, stamp: stamp)
    }
}

extension MessageDecoder {
    /// Parses `buffer`; one over `limit` only when it names a key that may carry bulk (a cheap
    /// byte search first, so that 400 KB of garbage is refused without being parsed).
    private static func read(
        _ buffer: UnsafeBufferPointer<UInt8>, limit: Int, into wire: inout WirePayload
    ) throws(MessageRejectionReason) {
        if buffer.count > limit, !bulkKeys.contains(where: { buffer.firstRange(of: $0) != nil }) {
            throw .oversize(bytes: buffer.count, limit: limit)
        }
        try WirePayload.parse(buffer, into: &wire)
    }

    /// The keys whose values may take a payload past the limit, as they appear in JSON.
    private static let bulkKeys: [[UInt8]] = [Array(#""image""#.utf8), Array(#""data""#.utf8)]

    /// Reads one message's fields, rejecting on required keys and collecting dropped informational ones.
    private struct FieldReader {
        /// The parsed payload, filled in place by ``MessageDecoder/read(_:limit:into:)``.
        var wire = WirePayload()
        let now: Int
        let futureTolerance: Int
        var dropped: [String] = []

        static let informationalLocationKeys: Set<String> = [
            "acc", "alt", "vac", "vel", "cog", "batt", "bs", "m", "created_at", "ve", "vn", "ms", "tr", "due", "inregions",
            "inrids", "p", "motionactivities", "image", "SSID", "BSSID", "poi",
        ]

        init(now: Int, futureTolerance: Int) {
            self.now = now
            self.futureTolerance = futureTolerance
        }

        mutating func message(type: String) throws(MessageRejectionReason) -> InboundMessage {
            switch type {
            case "location":
                return try location()
            case "lwt" where wire.state == nil:
                return .lastWill(tst: informationalTimestamp(wire.tst, "tst") ?? now)
            case "lwt", "presence":  // presence: `lwt` with a `state` (issue 10), or the older `presence`
                let state = try required(wire.state, "state")
                guard state == "online" || state == "offline" else { throw .outOfRange("state") }
                let tst = try requiredTimestamp(wire.tst, "tst", absentMeans: now)
                return .presence(
                    online: state == "online", since: informationalTimestamp(wire.since, "since"), tst: tst,
                    due: state == "online" ? promise(wire.due, after: tst) : nil)
            case "transition":
                let event = try required(wire.event, "event")
                guard event == "enter" || event == "leave" else { throw .outOfRange("event") }
                let tst = try requiredTimestamp(wire.tst, "tst", absentMeans: nil)
                return .transition(event: event, region: boundedString(wire.desc, "desc", maxBytes: 200), tst: tst)
            case "card":
                return .card(name: boundedString(wire.name, "name", maxBytes: 200), face: face())
            default:
                guard type.utf8.count <= 32 else { throw .outOfRange("_type") }
                return .ignored(type: type)
            }
        }

        private mutating func location() throws(MessageRejectionReason) -> InboundMessage {
            let lat = try required(wire.lat, "lat")
            let lon = try required(wire.lon, "lon")
            let tst = try requiredTimestamp(wire.tst, "tst", absentMeans: nil)
            guard lat.isFinite, (-90...90).contains(lat) else { throw .outOfRange("lat") }
            guard lon.isFinite, (-180...180).contains(lon) else { throw .outOfRange("lon") }
            for key in wire.wrongTypes where Self.informationalLocationKeys.contains(key) { drop(key) }
            // An attached photo (iOS point of interest) is not kept: dropped and counted, the fix taken.
            if wire.imageBytes != nil { drop("image") }
            var ve = velocity(wire.ve, "ve")
            var vn = velocity(wire.vn, "vn")
            if dropped.contains("ve") || dropped.contains("vn") {  // extrapolation needs both components
                ve = nil
                vn = nil
            }
            var message = LocationMessage(
                tid: boundedString(wire.tid, "tid", maxBytes: 8) ?? "",
                tst: tst,
                lat: lat,
                lon: lon,
                acc: int(wire.acc, "acc", in: 0...1_000_000) ?? 0,
                alt: int(wire.alt, "alt", in: -20_000...100_000),
                vac: int(wire.vac, "vac", in: 0...1_000_000),
                vel: int(wire.vel, "vel", in: 0...5_000),
                cog: int(wire.cog, "cog", in: 0...360).map { $0 % 360 },
                batt: int(wire.batt, "batt", in: 0...100),
                bs: int(wire.bs, "bs", in: 0...3),
                t: boundedString(wire.t, "t", maxBytes: 8),
                m: int(wire.m, "m", in: -1...10),
                createdAt: informationalTimestamp(wire.createdAt, "created_at"),
                ve: ve,
                vn: vn,
                ms: int(wire.ms, "ms", in: 1...86_400),
                due: promise(wire.due, after: tst),
                tr: velocity(wire.tr, "tr")
            )
            // Kept for the history (every field a device sent), never shown in views.
            message.conn = boundedString(wire.conn, "conn", maxBytes: 8)
            message.p = wire.p.flatMap { $0.isFinite && (0...2_000).contains($0) ? $0 : nil }
            if wire.p != nil, message.p == nil { drop("p") }
            message.ssid = boundedString(wire.ssid, "SSID", maxBytes: 200)
            message.bssid = boundedString(wire.bssid, "BSSID", maxBytes: 64)
            message.inrids = boundedList(wire.inrids, "inrids")
            message.motionactivities = boundedList(wire.motionactivities, "motionactivities")
            message.poi = boundedString(wire.poi, "poi", maxBytes: 256)
            var regions = wire.inregions
            if let list = regions, list.contains(where: { $0.isEmpty || $0.utf8.count > 200 }) {
                drop("inregions")
                regions = nil
            }
            return .location(message, inregions: regions)
        }

        // MARK: Required keys reject

        private func required<T>(_ value: T?, _ key: String) throws(MessageRejectionReason) -> T {
            if wire.wrongTypes.contains(key) { throw .wrongType(key) }
            guard let value else { throw .missingField(key) }
            return value
        }

        private func requiredTimestamp(_ value: Double?, _ key: String, absentMeans fallback: Int?) throws(MessageRejectionReason) -> Int {
            if wire.wrongTypes.contains(key) { throw .wrongType(key) }
            guard let value else {
                guard let fallback else { throw .missingField(key) }
                return fallback
            }
            guard value.isFinite, value >= Double(MessageDecoder.earliestTimestamp), value < 4_000_000_000 else {
                throw .outOfRange(key)
            }
            let seconds = Int(value.rounded(.down))
            guard seconds <= now + futureTolerance else { throw .futureTimestamp(tst: seconds) }
            return seconds
        }

        // MARK: Informational keys drop

        private mutating func drop(_ key: String) {
            if !dropped.contains(key) { dropped.append(key) }
        }

        /// The longest promise accepted: a `due` more than this many seconds after the message (or
        /// after now) is dropped as absurd.
        static let maxPromise = 7 * 86_400

        /// A `due` (epoch s by which the next message is promised): dropped (counted, logged once per
        /// member) when of the wrong type, not finite, before the message's own `tst`, or more than
        /// ``maxPromise`` seconds after the later of `tst` and now.
        private mutating func promise(_ value: Double?, after tst: Int) -> Int? {
            if wire.wrongTypes.contains("due") { drop("due") }
            guard let value else { return nil }
            guard value.isFinite, value >= Double(tst), value <= Double(max(tst, now) + Self.maxPromise) else {
                drop("due")
                return nil
            }
            return Int(value.rounded(.down))
        }

        private mutating func informationalTimestamp(_ value: Double?, _ key: String) -> Int? {
            if wire.wrongTypes.contains(key) { drop(key) }
            guard let value else { return nil }
            guard value.isFinite, value >= Double(MessageDecoder.earliestTimestamp), value < 4_000_000_000,
                  Int(value.rounded(.down)) <= now + futureTolerance
            else {
                drop(key)
                return nil
            }
            return Int(value.rounded(.down))
        }

        private mutating func int(_ value: Double?, _ key: String, in range: ClosedRange<Int>) -> Int? {
            guard let value else { return nil }
            guard value.isFinite, value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
                drop(key)
                return nil
            }
            return Int(value.rounded())
        }

        private mutating func velocity(_ value: Double?, _ key: String) -> Double? {
            guard let value else { return nil }
            guard value.isFinite, abs(value) <= 1_000 else {
                drop(key)
                return nil
            }
            return value
        }

        private mutating func boundedString(_ value: String?, _ key: String, maxBytes: Int) -> String? {
            if wire.wrongTypes.contains(key) { drop(key) }
            guard let value else { return nil }
            guard value.utf8.count <= maxBytes else {
                drop(key)
                return nil
            }
            return value
        }

        /// A list of short strings (`inrids`, `motionactivities`): dropped (counted) when it has
        /// more than 64 entries or one longer than 200 bytes.
        private mutating func boundedList(_ value: [String]?, _ key: String) -> [String]? {
            guard let value else { return nil }
            guard value.count <= 64, value.allSatisfy({ $0.utf8.count <= 200 }) else {
                drop(key)
                return nil
            }
            return value
        }

        private mutating func face() -> MemberFace? {
            if wire.wrongTypes.contains("face") { drop("face") }
            guard let text = wire.face, !text.isEmpty else { return nil }
            guard text.utf8.count <= MessageDecoder.maxCardPayloadBytes,
                  let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters),
                  data.count <= MessageDecoder.maxFaceBytes,
                  let face = MemberFace(data: Array(data))
            else {
                drop("face")
                return nil
            }
            return face
        }
    }
}
