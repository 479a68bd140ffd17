import Foundation
import Subscriber

/// A stored location as the OwnTracks Recorder serves it: the OwnTracks fields the device sent
/// (`_type`, `lat`, `lon`, `tst`, `acc`, `tid`, and `alt`, `vac`, `vel`, `cog`, `batt`, `bs`, `t`,
/// `m`, `created_at` when it sent them), plus `topic`, `username`, `device`, `isotst` (ISO 8601,
/// UTC) and `disptst` (`YYYY-MM-DD HH:MM:SS`, UTC), which the Recorder adds (its API.md, `fields`
/// examples) and the OwnTracks Frontend reads. ``RecorderEncoder`` writes it.
enum RecorderLocation {
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
