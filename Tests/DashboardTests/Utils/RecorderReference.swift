@testable import Dashboard
import Foundation
import Subscriber

// The Recorder formats as whereabouts-sub wrote them before the byte encoder (RecorderEncoder,
// issue 14's speed work): each location built as a Swift String by interpolation and
// `description`. Kept here as the reference the byte encoder must equal, byte for byte.

/// The reference JSON writer of a location.
enum RecorderReference {
    /// The JSON object of `location`, reduced to `fields` when given.
    static func object(_ location: HistoryLocation, fields: Set<String>?) -> [String: Any] {
        let fix = location.fix
        var object: [String: Any] = [
            "_type": "location", "lat": fix.lat, "lon": fix.lon, "tst": fix.tst, "acc": fix.acc, "tid": fix.tid,
            "topic": "owntracks/\(location.member.user)/\(location.member.device)",
            "username": location.member.user, "device": location.member.device,
            "isotst": RecorderLocation.isoTime(fix.tst),
            "disptst": RecorderLocation.isoTime(fix.tst).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: ""),
        ]
        let optional: [(String, Any?)] = [
            ("alt", fix.alt), ("vac", fix.vac), ("vel", fix.vel), ("cog", fix.cog), ("batt", fix.batt), ("bs", fix.bs),
            ("t", fix.t), ("m", fix.m), ("created_at", fix.createdAt),
        ]
        for case let (key, value?) in optional { object[key] = value }
        if let fields { object = object.filter { fields.contains($0.key) } }
        return object
    }

    static func json(_ location: HistoryLocation, fields: Set<String>?, into out: inout String) {
        let fix = location.fix
        let iso = RecorderLocation.isoTime(fix.tst)
        var first = true
        func key(_ name: String) -> Bool {
            guard fields?.contains(name) ?? true else { return false }
            out += first ? "{\"" : ",\""
            out += name
            out += "\":"
            first = false
            return true
        }
        func string(_ text: String) { appendQuoted(text, to: &out) }
        // Keys in byte order, as JSONSerialization's .sortedKeys writes them.
        if key("_type") { out += "\"location\"" }
        if key("acc") { out += String(fix.acc) }
        if let alt = fix.alt, key("alt") { out += String(alt) }
        if let batt = fix.batt, key("batt") { out += String(batt) }
        if let bs = fix.bs, key("bs") { out += String(bs) }
        if let cog = fix.cog, key("cog") { out += String(cog) }
        if let createdAt = fix.createdAt, key("created_at") { out += String(createdAt) }
        if key("device") { string(location.member.device) }
        if key("disptst") {
            out += "\""
            out += iso.dropLast().replacingOccurrences(of: "T", with: " ")
            out += "\""
        }
        if key("isotst") { string(iso) }
        if key("lat") { out += number(fix.lat) }
        if key("lon") { out += number(fix.lon) }
        if let m = fix.m, key("m") { out += String(m) }
        if let t = fix.t, key("t") { string(t) }
        if key("tid") { string(fix.tid) }
        if key("topic") { string("owntracks/\(location.member.user)/\(location.member.device)") }
        if key("tst") { out += String(fix.tst) }
        if key("username") { string(location.member.user) }
        if let vac = fix.vac, key("vac") { out += String(vac) }
        if let vel = fix.vel, key("vel") { out += String(vel) }
        out += first ? "{}" : "}"
    }

    /// A JSON number for a coordinate (the shortest text that reads back as the same value).
    private static func number(_ value: Double) -> String {
        value.isFinite ? "\(value)" : "null"
    }

    /// `text` as a JSON string literal: quotes, backslashes and control characters escaped.
    static func appendQuoted(_ text: String, to out: inout String) {
        out += "\""
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out += text
        } else {
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

extension RecorderFormat {
    /// One location as the reference writes it, `index` counting from 0.
    func referenceRecord(_ location: HistoryLocation, index: Int, fields: Set<String>?, orderedFields: [String]?) -> String {
        let comma = index == 0 ? "" : ","
        let fix = location.fix
        switch self {
        case .json:
            var text = comma
            RecorderReference.json(location, fields: fields, into: &text)
            return text
        case .csv:
            var line = ""
            for (index, column) in (orderedFields ?? Self.csvColumns).enumerated() {
                if index > 0 { line += "," }
                line += Self.referenceCSVCell(column, of: location)
            }
            return line + "\n"
        case .geojson:
            let alt = fix.alt.map { #","alt":\#($0)"# } ?? ""
            let vel = fix.vel.map { #","vel":\#($0)"# } ?? ""
            return comma + #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(fix.lon),\#(fix.lat)]},"#
                + #""properties":{"name":\#(Self.referenceJSONString(fix.tid)),"acc":\#(fix.acc)\#(alt)\#(vel),"tst":\#(fix.tst),"isotst":"\#(RecorderLocation.isoTime(fix.tst))"}}"#
        case .xml:
            let iso = RecorderLocation.isoTime(fix.tst)
            let member = location.member
            var attributes: [(String, String?)] = [
                ("acc", String(fix.acc)), ("alt", fix.alt.map(String.init)), ("batt", fix.batt.map(String.init)), ("bs", fix.bs.map(String.init)),
                ("cog", fix.cog.map(String.init)), ("created_at", fix.createdAt.map(String.init)), ("device", member.device),
                ("disptst", String(iso.dropLast()).replacingOccurrences(of: "T", with: " ")), ("isotst", iso),
                ("lat", "\(fix.lat)"), ("lon", "\(fix.lon)"), ("m", fix.m.map(String.init)), ("t", fix.t), ("tid", fix.tid),
                ("topic", "owntracks/\(member.user)/\(member.device)"), ("tst", String(fix.tst)), ("username", member.user),
                ("vac", fix.vac.map(String.init)), ("vel", fix.vel.map(String.init)),
            ]
            if let fields { attributes = attributes.filter { fields.contains($0.0) } }
            var element = " <point>\n"
            for case let (name, value?) in attributes { element += "  <\(name)>\(Self.referenceXML(value))</\(name)>\n" }
            return element + " </point>\n"
        case .linestring:
            return comma + "[\(fix.lon),\(fix.lat)]"
        case .gpx:
            let ele = fix.alt.map { "<ele>\($0)</ele>" } ?? ""
            return "    <trkpt lat=\"\(fix.lat)\" lon=\"\(fix.lon)\">\(ele)<time>\(RecorderLocation.isoTime(fix.tst))</time></trkpt>\n"
        }
    }

    /// One CSV cell: the column's value for `location` (empty when it has none); numbers as
    /// numbers (the OwnTracks integers without a fraction), text quoted when it holds a comma,
    /// quote or line break.
    private static func referenceCSVCell(_ column: String, of location: HistoryLocation) -> String {
        let fix = location.fix
        func int(_ value: Int?) -> String { value.map(String.init) ?? "" }
        switch column {
        case "_type": return "location"
        case "tst": return String(fix.tst)
        case "isotst": return RecorderLocation.isoTime(fix.tst)
        case "disptst": return String(RecorderLocation.isoTime(fix.tst).dropLast()).replacingOccurrences(of: "T", with: " ")
        case "lat": return "\(fix.lat)"
        case "lon": return "\(fix.lon)"
        case "acc": return String(fix.acc)
        case "alt": return int(fix.alt)
        case "vac": return int(fix.vac)
        case "vel": return int(fix.vel)
        case "cog": return int(fix.cog)
        case "batt": return int(fix.batt)
        case "bs": return int(fix.bs)
        case "m": return int(fix.m)
        case "created_at": return int(fix.createdAt)
        case "tid": return referenceQuoted(fix.tid)
        case "t": return referenceQuoted(fix.t ?? "")
        case "username": return referenceQuoted(location.member.user)
        case "device": return referenceQuoted(location.member.device)
        case "topic": return referenceQuoted("owntracks/\(location.member.user)/\(location.member.device)")
        default: return ""
        }
    }

    /// `text` as XML element text: the five entities (as the Recorder's `emit_one`), control characters as spaces.
    private static func referenceXML(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case _ where scalar.value < 0x20: out += " "
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func referenceQuoted(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `text` as a JSON string literal.
    private static func referenceJSONString(_ text: String) -> String {
        var out = ""
        RecorderReference.appendQuoted(text, to: &out)
        return out
    }
}
