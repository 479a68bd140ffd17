import Foundation
import Subscriber

/// The output formats of `/api/0/locations` (`format=`), shaped as the OwnTracks Recorder writes
/// them (its `storage.c`: `geo_json`, `geo_linestring`, `gpx_string`; `ocat.c`: `csv_output`):
/// - `json`: `{"data":[…],"count":n,"status":200}` (the Recorder's keys; `data` first so that it
///   can stream before the count is known).
/// - `csv`: a header line of the field names, then one line per location; integers (`tst`, `vel`,
///   `cog`, `batt`, `alt`, ...) as integers. Unlike the Recorder, values holding a comma, quote or
///   line break are quoted (RFC 4180), so a `tid` cannot shift the columns.
/// - `geojson`: a `FeatureCollection` of `Point` features, coordinates `[lon, lat]`, properties
///   `name` (the `tid`) and, beyond the Recorder's, `tst` and `isotst`.
/// - `linestring`: one `Feature` whose `geometry` is a `LineString` of `[lon, lat]`.
/// - `gpx`: GPX 1.1, one `trk` with one `trkseg` of `trkpt lat lon`; beyond the Recorder's, each
///   point carries `ele` (when the device sent `alt`) and `time`, so the file replays in time.
enum RecorderFormat: String, CaseIterable, Sendable {
    case json, csv, gpx, geojson, linestring

    /// The CSV columns when `fields` is not given.
    static let csvColumns = ["tst", "isotst", "lat", "lon", "acc", "alt", "vac", "vel", "cog", "batt", "tid", "t", "m", "username", "device"]

    /// The `Content-Type` served.
    var contentType: String {
        switch self {
        case .json, .linestring: "application/json; charset=utf-8"
        case .geojson: "application/geo+json; charset=utf-8"
        case .csv: "text/csv; charset=utf-8; header=present"
        case .gpx: "application/gpx+xml; charset=utf-8"
        }
    }

    /// The file name offered to browsers that save the answer (`Content-Disposition`).
    func fileName(user: String, device: String) -> String {
        let safe = "\(user)-\(device)".map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        return String(safe.prefix(80)) + "." + (self == .linestring ? "geojson" : rawValue)
    }

    /// What comes before the first location.
    func header(fields: Set<String>?, orderedFields: [String]?) -> String {
        switch self {
        case .json: #"{"data":["#
        case .csv: (orderedFields ?? Self.csvColumns).joined(separator: ",") + "\n"
        case .geojson: #"{"type":"FeatureCollection","features":["#
        case .linestring: #"{"type":"Feature","geometry":{"type":"LineString","coordinates":["#
        case .gpx:
            "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\" ?>\n"
                + "<gpx version=\"1.1\" creator=\"Whereabouts\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n <trk>\n  <trkseg>\n"
        }
    }

    /// What comes after the last location, `count` of them.
    func footer(count: Int) -> String {
        switch self {
        case .json: #"],"count":\#(count),"status":200}"#
        case .csv: ""
        case .geojson: "]}"
        case .linestring: "]}}"
        case .gpx: "  </trkseg>\n </trk>\n</gpx>\n"
        }
    }

    /// One location, `index` counting from 0 (JSON formats put a comma before all but the first).
    func record(_ location: HistoryLocation, index: Int, fields: Set<String>?, orderedFields: [String]?) -> String {
        let comma = index == 0 ? "" : ","
        let fix = location.fix
        switch self {
        case .json:
            var text = comma
            RecorderLocation.json(location, fields: fields, into: &text)
            return text
        case .csv:
            var line = ""
            for (index, column) in (orderedFields ?? Self.csvColumns).enumerated() {
                if index > 0 { line += "," }
                line += Self.csvCell(column, of: location)
            }
            return line + "\n"
        case .geojson:
            return comma + #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(fix.lon),\#(fix.lat)]},"#
                + #""properties":{"name":\#(Self.jsonString(fix.tid)),"tst":\#(fix.tst),"isotst":"\#(RecorderLocation.isoTime(fix.tst))"}}"#
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
    private static func csvCell(_ column: String, of location: HistoryLocation) -> String {
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
        case "tid": return quotedIfNeeded(fix.tid)
        case "t": return quotedIfNeeded(fix.t ?? "")
        case "username": return quotedIfNeeded(location.member.user)
        case "device": return quotedIfNeeded(location.member.device)
        case "topic": return quotedIfNeeded("owntracks/\(location.member.user)/\(location.member.device)")
        default: return ""
        }
    }

    private static func quotedIfNeeded(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `text` as a JSON string literal.
    private static func jsonString(_ text: String) -> String {
        var out = ""
        RecorderLocation.appendQuoted(text, to: &out)
        return out
    }
}
