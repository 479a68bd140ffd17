import Foundation
import Subscriber

extension RecorderLocation {
    /// ``object(_:fields:)`` encoded as JSON text with sorted keys, written directly: the same
    /// keys and values as `JSONSerialization` gives for the object, without building a dictionary
    /// of `Any` per location, which streaming millions of locations cannot afford.
    static func json(_ location: HistoryLocation, fields: Set<String>?, into out: inout String) {
        let fix = location.fix
        let iso = isoTime(fix.tst)
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
