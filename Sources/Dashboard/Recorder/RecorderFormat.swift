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
/// - `xml`: an `<owntracks>` document with one `<point>` per location holding one child element
///   per key of the JSON location, one per line (the Recorder's `xml_output`; `fields=` picks them).
enum RecorderFormat: String, CaseIterable, Sendable {
    case json, csv, gpx, geojson, linestring, xml

    /// The CSV columns when `fields` is not given.
    static let csvColumns = ["tst", "isotst", "lat", "lon", "acc", "alt", "vac", "vel", "cog", "batt", "tid", "t", "m", "username", "device"]

    /// The `Content-Type` served.
    var contentType: String {
        switch self {
        case .json, .linestring: ResponseHeaderValues.json
        case .geojson: ResponseHeaderValues.geoJSON
        case .csv: "text/csv; charset=utf-8; header=present"  // two parameters: more than MediaType holds
        case .gpx: ResponseHeaderValues.gpx
        case .xml: ResponseHeaderValues.xml
        }
    }

    /// The file name offered to browsers that save the answer (`Content-Disposition`).
    func fileName(user: String, device: String) -> String {
        let safe = "\(user)-\(device)".map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        return String(safe.prefix(80)) + "." + (self == .linestring ? "geojson" : rawValue)
    }

    /// What comes before the first location; `fields`: the CSV columns asked for, in order.
    func header(fields: [String]?) -> String {
        switch self {
        case .json: #"{"data":["#
        case .csv: (fields ?? Self.csvColumns).joined(separator: ",") + "\n"
        case .geojson: #"{"type":"FeatureCollection","features":["#
        case .linestring: #"{"type":"Feature","geometry":{"type":"LineString","coordinates":["#
        case .gpx:
            "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\" ?>\n"
                + "<gpx version=\"1.1\" creator=\"Whereabouts\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n <trk>\n  <trkseg>\n"
        case .xml: "<?xml version='1.0' encoding='UTF-8'?>\n<owntracks>\n"
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
        case .xml: "</owntracks>\n"
        }
    }
}
