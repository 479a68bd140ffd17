import Foundation
import WhereaboutsCore

/// The fields of a location that the history keeps in one JSON text column, `device_fields`,
/// under the keys the OwnTracks apps send them with: `conn`, `p`, `SSID`, `BSSID`, `inrids`,
/// `motionactivities` (owntracks/android `MessageLocation.kt`, the iOS app's location message;
/// the booklet's `json.md`). Absent fields are left out; a location with none of them stores
/// `NULL`. Read back into ``LocationMessage`` by ``apply(_:to:)``.
enum HistoryDeviceFields {
    /// The JSON object of `fix`'s device fields, or `nil` when it has none.
    static func json(_ fix: LocationMessage) -> String? {
        guard fix.conn != nil || fix.p != nil || fix.ssid != nil || fix.bssid != nil || fix.inrids != nil
            || fix.motionactivities != nil else { return nil }
        var out = "{"
        func key(_ name: String) {
            if out.utf8.count > 1 { out += "," }
            out += "\"\(name)\":"
        }
        if let conn = fix.conn { key("conn"); appendString(conn, to: &out) }
        if let p = fix.p, p.isFinite { key("p"); out += "\(p)" }
        if let ssid = fix.ssid { key("SSID"); appendString(ssid, to: &out) }
        if let bssid = fix.bssid { key("BSSID"); appendString(bssid, to: &out) }
        if let inrids = fix.inrids { key("inrids"); appendStrings(inrids, to: &out) }
        if let activities = fix.motionactivities { key("motionactivities"); appendStrings(activities, to: &out) }
        return out + "}"
    }

    /// Sets `fix`'s device fields from the stored JSON `text` (left as they are when it is not
    /// a JSON object).
    static func apply(_ text: String, to fix: inout LocationMessage) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return }
        fix.conn = object["conn"] as? String
        fix.p = (object["p"] as? NSNumber)?.doubleValue
        fix.ssid = object["SSID"] as? String
        fix.bssid = object["BSSID"] as? String
        fix.inrids = object["inrids"] as? [String]
        fix.motionactivities = object["motionactivities"] as? [String]
    }

    private static func appendStrings(_ strings: [String], to out: inout String) {
        out += "["
        for (index, string) in strings.enumerated() {
            if index > 0 { out += "," }
            appendString(string, to: &out)
        }
        out += "]"
    }

    /// `string` as a JSON string: quotes, backslashes and control characters escaped.
    private static func appendString(_ string: String, to out: inout String) {
        out += "\""
        for scalar in string.unicodeScalars {
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
        out += "\""
    }
}
