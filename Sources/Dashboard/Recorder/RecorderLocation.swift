import Foundation
import Subscriber

/// A stored location as the OwnTracks Recorder serves it: the OwnTracks fields the device sent,
/// plus `topic`, `username`, `device`, `isotst` (ISO 8601, UTC) and `disptst`
/// (`YYYY-MM-DD HH:MM:SS`, UTC), which the Recorder adds (its API.md, `fields` examples) and
/// the OwnTracks Frontend reads.
enum RecorderLocation {
    /// The JSON object of `location`, reduced to `fields` when given.
    static func object(_ location: HistoryLocation, fields: Set<String>?) -> [String: Any] {
        let fix = location.fix
        var object: [String: Any] = [
            "_type": "location", "lat": fix.lat, "lon": fix.lon, "tst": fix.tst, "acc": fix.acc, "tid": fix.tid,
            "topic": "owntracks/\(location.member.user)/\(location.member.device)",
            "username": location.member.user, "device": location.member.device,
            "isotst": isoTime(fix.tst),
            "disptst": isoTime(fix.tst).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: ""),
        ]
        let optional: [(String, Any?)] = [
            ("alt", fix.alt), ("vac", fix.vac), ("vel", fix.vel), ("cog", fix.cog), ("batt", fix.batt), ("bs", fix.bs),
            ("t", fix.t), ("m", fix.m), ("created_at", fix.createdAt),
        ]
        for case let (key, value?) in optional { object[key] = value }
        if let fields { object = object.filter { fields.contains($0.key) } }
        return object
    }

    /// The `fields` parameter (comma-separated names) as a set; `nil` when not given (all fields).
    static func fields(_ text: String?) -> Set<String>? {
        guard let text, !text.isEmpty else { return nil }
        return Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
    }

    /// The `fields` parameter as a list in the order given, without repeats; `nil` when not given.
    static func fieldList(_ text: String?) -> [String]? {
        guard let text, !text.isEmpty else { return nil }
        var seen = Set<String>()
        return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    /// `tst` as ISO 8601 in UTC (`2026-11-24T03:06:04Z`).
    static func isoTime(_ tst: Int) -> String {
        var seconds = time_t(tst)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil, (0...9999).contains(Int(parts.tm_year) + 1900) else {
            return Date(timeIntervalSince1970: Double(tst)).formatted(.iso8601)
        }
        var text = [UInt8](repeating: 0, count: 20)
        func put(_ value: Int32, at index: Int, digits: Int) {
            var value = Int(value)
            for offset in stride(from: digits - 1, through: 0, by: -1) {
                text[index + offset] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        put(parts.tm_year + 1900, at: 0, digits: 4)
        put(parts.tm_mon + 1, at: 5, digits: 2)
        put(parts.tm_mday, at: 8, digits: 2)
        put(parts.tm_hour, at: 11, digits: 2)
        put(parts.tm_min, at: 14, digits: 2)
        put(parts.tm_sec, at: 17, digits: 2)
        for (index, character) in [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, "Z")] as [(Int, Unicode.Scalar)] {
            text[index] = UInt8(character.value)
        }
        return String(decoding: text, as: UTF8.self)
    }
}
