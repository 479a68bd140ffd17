import NIOCore
import Subscriber

/// Writes locations in one of the Recorder's formats (``RecorderFormat``) as bytes, straight
/// into a `ByteBuffer` (``RecorderBytes``): what `/api/0/locations`, `/api/0/last` and
/// `/ws/last` serve. The JSON object of a location has the keys ``RecorderLocation`` lists,
/// sorted as `JSONSerialization`'s `.sortedKeys` writes them.
///
/// Everything that depends only on the request (the format, the `fields` asked for, the text of
/// the member's user, device and topic) is worked out once, in the initialiser; per location
/// only the location's own values are written.
struct RecorderEncoder: Sendable {
    /// The JSON keys of a location, in byte order (`JSONSerialization`'s `.sortedKeys`).
    private enum Key: Int, CaseIterable {
        case type, acc, alt, batt, bs, cog, createdAt, device, disptst, isotst, lat, lon, m, t, tid, topic, tst, username, vac, vel

        var name: String {
            switch self {
            case .type: "_type"
            case .createdAt: "created_at"
            default: "\(self)"
            }
        }
    }

    /// A CSV column.
    private enum Column: Equatable {
        case type, tst, isotst, disptst, lat, lon, tid, t, username, device, topic, unknown
        case int(HistoryLocationRows.IntColumn)

        init(_ name: String) {
            switch name {
            case "_type": self = .type
            case "tst": self = .tst
            case "isotst": self = .isotst
            case "disptst": self = .disptst
            case "lat": self = .lat
            case "lon": self = .lon
            case "acc": self = .int(.acc)
            case "alt": self = .int(.alt)
            case "vac": self = .int(.vac)
            case "vel": self = .int(.vel)
            case "cog": self = .int(.cog)
            case "batt": self = .int(.batt)
            case "bs": self = .int(.bs)
            case "m": self = .int(.m)
            case "created_at": self = .int(.createdAt)
            case "tid": self = .tid
            case "t": self = .t
            case "username": self = .username
            case "device": self = .device
            case "topic": self = .topic
            default: self = .unknown
            }
        }
    }

    /// The text of one member as the format writes it (`username`, `device`, `topic`), worked
    /// out once per member; or ``ofEachPoint``: taken from each location
    /// (``RecorderPoint/withMember(_:)``), for answers that hold many members.
    struct Member: Sendable {
        fileprivate let texts: (user: [UInt8], device: [UInt8], topic: [UInt8])?

        /// The member's texts are taken from each location.
        static let ofEachPoint = Member(texts: nil)

        private init(texts: (user: [UInt8], device: [UInt8], topic: [UInt8])?) {
            self.texts = texts
        }

        /// The texts of `member` in `format` (JSON string literals, CSV cells; none for the
        /// formats that do not write them).
        init(_ member: MemberID, format: RecorderFormat) {
            let topic = "owntracks/\(member.user)/\(member.device)"
            switch format {
            case .json:
                texts = (RecorderBytes.jsonQuoted(member.user), RecorderBytes.jsonQuoted(member.device), RecorderBytes.jsonQuoted(topic))
            case .csv:
                texts = (Array(RecorderBytes.csvQuoted(member.user).utf8), Array(RecorderBytes.csvQuoted(member.device).utf8),
                         Array(RecorderBytes.csvQuoted(topic).utf8))
            case .gpx, .geojson, .linestring:
                texts = ([], [], [])
            case .xml:
                texts = (RecorderBytes.xmlEscaped(member.user), RecorderBytes.xmlEscaped(member.device), RecorderBytes.xmlEscaped(topic))
            }
        }

        /// Bytes the member's texts take at most in one location of `point`.
        fileprivate func bound<Point: RecorderPoint & ~Copyable>(_ point: borrowing Point) -> Int {
            if let texts { return texts.user.count + texts.device.count + texts.topic.count }
            return point.withMember { 12 * ($0.count + $1.count) + 32 }
        }
    }

    let format: RecorderFormat
    /// The JSON keys written (bit `Key.rawValue`).
    private let keys: UInt32
    /// The CSV columns, in order.
    private let columns: [Column]

    /// An encoder for `format`, reduced to `fields` when given (for CSV, in that order; JSON
    /// keeps its sorted keys; names that are no field are left out of JSON and are empty
    /// columns in CSV).
    init(format: RecorderFormat, fields: [String]?) {
        self.format = format
        var keys: UInt32 = 0
        for key in Key.allCases where fields?.contains(key.name) ?? true { keys |= 1 << UInt32(key.rawValue) }
        self.keys = keys
        columns = (fields ?? RecorderFormat.csvColumns).map(Column.init)
    }

    /// Whether the format puts a comma between locations (the JSON formats), one byte before
    /// each but the first.
    var separatesWithComma: Bool { format != .csv && format != .gpx && format != .xml }

    @inline(__always)
    private func has(_ key: Key) -> Bool { keys & (1 << UInt32(key.rawValue)) != 0 }

    /// Bytes one location of `point` takes at most: the keys and numbers (a number or a time
    /// takes at most 64 bytes per CSV column), its texts escaped (6 bytes per byte at worst), the
    /// member's texts.
    private func bound<Point: RecorderPoint & ~Copyable>(_ point: borrowing Point, member: Member) -> Int {
        let text = point.withText(.tid) { $0.count } + point.withText(.t) { $0.count }
        return 1_024 + 64 * columns.count + 6 * text + member.bound(point)
    }

    /// Appends `point` of `member`, the `index`th of the answer (JSON formats put a comma
    /// before all but the first).
    ///
    /// `extra`: keys to add at the end of a JSON object (``RecorderExtras``), each with the comma
    /// before it; other formats ignore it.
    func append<Point: RecorderPoint & ~Copyable>(
        _ point: borrowing Point, of member: Member, index: Int, extra: [UInt8]? = nil, to buffer: inout ByteBuffer
    ) {
        RecorderBytes.append(to: &buffer, bound: bound(point, member: member) + (extra?.count ?? 0)) { bytes in
            if index > 0, separatesWithComma { bytes.byte(UInt8(ascii: ",")) }
            switch format {
            case .json: json(point, of: member, extra: extra, to: &bytes)
            case .xml: xml(point, of: member, to: &bytes)
            case .csv: csv(point, of: member, to: &bytes)
            case .geojson:
                bytes.ascii(#"{"type":"Feature","geometry":{"type":"Point","coordinates":["#)
                bytes.double(point.lon)
                bytes.byte(UInt8(ascii: ","))
                bytes.double(point.lat)
                bytes.ascii(#"]},"properties":{"name":"#)
                point.withText(.tid) { bytes.jsonString($0) }
                // As the Recorder's geo_json: the accuracy, altitude and speed the device sent.
                bytes.ascii(#","acc":"#)
                bytes.int(point.int(.acc) ?? 0)
                if let alt = point.int(.alt) {
                    bytes.ascii(#","alt":"#)
                    bytes.int(alt)
                }
                if let vel = point.int(.vel) {
                    bytes.ascii(#","vel":"#)
                    bytes.int(vel)
                }
                bytes.ascii(#","tst":"#)
                bytes.int(point.tst)
                bytes.ascii(#","isotst":""#)
                bytes.time(point.tst)
                bytes.ascii(#""}}"#)
            case .linestring:
                bytes.byte(UInt8(ascii: "["))
                bytes.double(point.lon)
                bytes.byte(UInt8(ascii: ","))
                bytes.double(point.lat)
                bytes.byte(UInt8(ascii: "]"))
            case .gpx:
                bytes.ascii("    <trkpt lat=\"")
                bytes.double(point.lat)
                bytes.ascii("\" lon=\"")
                bytes.double(point.lon)
                bytes.ascii("\">")
                if let alt = point.int(.alt) {
                    bytes.ascii("<ele>")
                    bytes.int(alt)
                    bytes.ascii("</ele>")
                }
                bytes.ascii("<time>")
                bytes.time(point.tst)
                bytes.ascii("</time></trkpt>\n")
            }
        }
    }

    /// Each location `rows` holds for which `include` says yes, as JSON objects each with the
    /// comma that separates it from the one before (`/api/0/last` strips the first), and how many.
    /// Each object ends with the member's ``RecorderExtras``.
    func objects(
        _ rows: inout HistoryLocationRows, extras: RecorderExtras = .none, include: (borrowing HistoryLocationRows) -> Bool
    ) throws(HistoryError) -> (ByteBuffer, Int) {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(64 * 1024)
        var count = 0
        while try rows.next() {
            guard include(rows) else { continue }
            let extra = extras.isEmpty ? nil : extras.bytes(for: rows.memberID, tst: rows.tst)
            append(rows, of: .ofEachPoint, index: 1, extra: extra, to: &buffer)
            count += 1
        }
        return (buffer, count)
    }

    /// `location` as one JSON object (a `/ws/last` message), ending with its ``RecorderExtras``.
    func object(_ location: HistoryLocation, extras: RecorderExtras = .none) -> ByteBuffer {
        var buffer = ByteBuffer()
        append(location, of: Member(location.member, format: format), index: 0,
               extra: extras.bytes(for: location.member, tst: location.fix.tst), to: &buffer)
        return buffer
    }

    private func json<Point: RecorderPoint & ~Copyable>(_ point: borrowing Point, of member: Member, extra: [UInt8]?, to bytes: inout RecorderBytes) {
        var first = true
        // `name` is the key with its quotes and colon: one copy per key.
        func key(_ key: Key, _ name: StaticString) -> Bool {
            guard has(key) else { return false }
            bytes.byte(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
            bytes.ascii(name)
            first = false
            return true
        }
        func int(_ column: HistoryLocationRows.IntColumn, _ name: Key, _ text: StaticString) {
            if let value = point.int(column), key(name, text) { bytes.int(value) }
        }
        func number(_ value: Double) {
            if value.isFinite { bytes.double(value) } else { bytes.ascii("null") }
        }
        if key(.type, #""_type":"#) { bytes.ascii(#""location""#) }
        if key(.acc, #""acc":"#) { bytes.int(point.int(.acc) ?? 0) }
        int(.alt, .alt, #""alt":"#)
        int(.batt, .batt, #""batt":"#)
        int(.bs, .bs, #""bs":"#)
        int(.cog, .cog, #""cog":"#)
        int(.createdAt, .createdAt, #""created_at":"#)
        if key(.device, #""device":"#) {
            if let texts = member.texts { bytes.bytes(texts.device) } else { point.withMember { bytes.jsonString($1) } }
        }
        // disptst and isotst are the same 19 bytes but for the separator: the date is worked out
        // once and copied.
        var displayed: Int?
        if key(.disptst, #""disptst":"#) {
            bytes.byte(UInt8(ascii: "\""))
            let start = bytes.count
            if bytes.time(point.tst, separator: UInt8(ascii: " "), zone: false) { displayed = start }
            bytes.byte(UInt8(ascii: "\""))
        }
        if key(.isotst, #""isotst":"#) {
            bytes.byte(UInt8(ascii: "\""))
            if let displayed {
                let start = bytes.count
                bytes.repeatWritten(from: displayed, count: 19)
                bytes.replace(at: start + 10, with: UInt8(ascii: "T"))
                bytes.byte(UInt8(ascii: "Z"))
            } else {
                bytes.time(point.tst)
            }
            bytes.byte(UInt8(ascii: "\""))
        }
        if key(.lat, #""lat":"#) { number(point.lat) }
        if key(.lon, #""lon":"#) { number(point.lon) }
        int(.m, .m, #""m":"#)
        if point.hasText(.t), key(.t, #""t":"#) { point.withText(.t) { bytes.jsonString($0) } }
        if key(.tid, #""tid":"#) { point.withText(.tid) { bytes.jsonString($0) } }
        if key(.topic, #""topic":"#) {
            if let texts = member.texts {
                bytes.bytes(texts.topic)
            } else {
                point.withMember { user, device in
                    bytes.ascii("\"owntracks/")
                    bytes.jsonStringContent(user)
                    bytes.byte(UInt8(ascii: "/"))
                    bytes.jsonStringContent(device)
                    bytes.byte(UInt8(ascii: "\""))
                }
            }
        }
        if key(.tst, #""tst":"#) { bytes.int(point.tst) }
        if key(.username, #""username":"#) {
            if let texts = member.texts { bytes.bytes(texts.user) } else { point.withMember { user, _ in bytes.jsonString(user) } }
        }
        int(.vac, .vac, #""vac":"#)
        int(.vel, .vel, #""vel":"#)
        if let extra, !extra.isEmpty {
            // Each extra key comes with its comma; the first key of an object has none.
            if first { bytes.byte(UInt8(ascii: "{")) }
            extra.withUnsafeBytes { bytes.bytes(first ? UnsafeRawBufferPointer(rebasing: $0.dropFirst()) : $0) }
            first = false
        }
        bytes.ascii(first ? "{}" : "}")
    }

    /// One `<point>` element as the Recorder writes it (owntracks/recorder `storage.c`,
    /// `xml_output` and `emit_one`): one child element per key of the JSON object, in the same
    /// order, one per line, its text escaped (`&`, `<`, `>`, `"`, `'`; control characters as
    /// spaces).
    private func xml<Point: RecorderPoint & ~Copyable>(_ point: borrowing Point, of member: Member, to bytes: inout RecorderBytes) {
        bytes.ascii(" <point>\n")
        func element(_ key: Key, _ name: StaticString, _ value: (inout RecorderBytes) -> Void) {
            guard has(key) else { return }
            bytes.ascii("  <")
            bytes.ascii(name)
            bytes.byte(UInt8(ascii: ">"))
            value(&bytes)
            bytes.ascii("</")
            bytes.ascii(name)
            bytes.ascii(">\n")
        }
        func int(_ column: HistoryLocationRows.IntColumn, _ key: Key, _ name: StaticString) {
            if let value = point.int(column) { element(key, name) { $0.int(value) } }
        }
        element(.acc, "acc") { $0.int(point.int(.acc) ?? 0) }
        int(.alt, .alt, "alt")
        int(.batt, .batt, "batt")
        int(.bs, .bs, "bs")
        int(.cog, .cog, "cog")
        int(.createdAt, .createdAt, "created_at")
        element(.device, "device") { bytes in
            if let texts = member.texts { bytes.bytes(texts.device) } else { point.withMember { bytes.xmlText($1) } }
        }
        element(.disptst, "disptst") { $0.time(point.tst, separator: UInt8(ascii: " "), zone: false) }
        element(.isotst, "isotst") { $0.time(point.tst) }
        element(.lat, "lat") { $0.double(point.lat) }
        element(.lon, "lon") { $0.double(point.lon) }
        int(.m, .m, "m")
        if point.hasText(.t) { element(.t, "t") { bytes in point.withText(.t) { bytes.xmlText($0) } } }
        element(.tid, "tid") { bytes in point.withText(.tid) { bytes.xmlText($0) } }
        element(.topic, "topic") { bytes in
            if let texts = member.texts {
                bytes.bytes(texts.topic)
            } else {
                point.withMember { user, device in
                    bytes.ascii("owntracks/")
                    bytes.xmlText(user)
                    bytes.byte(UInt8(ascii: "/"))
                    bytes.xmlText(device)
                }
            }
        }
        element(.tst, "tst") { $0.int(point.tst) }
        element(.username, "username") { bytes in
            if let texts = member.texts { bytes.bytes(texts.user) } else { point.withMember { user, _ in bytes.xmlText(user) } }
        }
        int(.vac, .vac, "vac")
        int(.vel, .vel, "vel")
        bytes.ascii(" </point>\n")
    }

    private func csv<Point: RecorderPoint & ~Copyable>(_ point: borrowing Point, of member: Member, to bytes: inout RecorderBytes) {
        for (index, column) in columns.enumerated() {
            if index > 0 { bytes.byte(UInt8(ascii: ",")) }
            switch column {
            case .type: bytes.ascii("location")
            case .tst: bytes.int(point.tst)
            case .isotst: bytes.time(point.tst)
            case .disptst: bytes.time(point.tst, separator: UInt8(ascii: " "), zone: false)
            case .lat: bytes.double(point.lat)
            case .lon: bytes.double(point.lon)
            case .int(.acc): bytes.int(point.int(.acc) ?? 0)
            case .int(let column): if let value = point.int(column) { bytes.int(value) }
            case .tid: point.withText(.tid) { bytes.csvCell($0) }
            case .t: point.withText(.t) { bytes.csvCell($0) }
            case .username, .device, .topic:
                if let texts = member.texts {
                    bytes.bytes(column == .username ? texts.user : column == .device ? texts.device : texts.topic)
                } else {
                    point.withMember { user, device in
                        let (user, device) = (String(decoding: user, as: UTF8.self), String(decoding: device, as: UTF8.self))
                        bytes.write(RecorderBytes.csvQuoted(column == .username ? user : column == .device ? device : "owntracks/\(user)/\(device)"))
                    }
                }
            case .unknown: break
            }
        }
        bytes.byte(UInt8(ascii: "\n"))
    }
}
