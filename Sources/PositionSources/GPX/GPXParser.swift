import Foundation
import WhereaboutsCore
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A streaming GPX 1.0 / 1.1 reader over Foundation's `XMLParser`.
///
/// It reads the track points (`<trk>/<trkseg>/<trkpt>`) with `lat`/`lon`, `<time>`, `<ele>`, and,
/// from GPX 1.0 or from any extension element with these local names: `<speed>` (m/s), `<course>`
/// or `<bearing>` (degrees), `<hdop>`, `<pdop>`, `<vdop>`. Namespace prefixes are ignored, so
/// Garmin's `gpxtpx:speed`/`gpxtpx:course` are read as well. Waypoints and routes are not fixes.
final class GPXParser: NSObject, XMLParserDelegate {
    private let options: GPXOptions
    private let rejections: RejectionCounter
    private let emit: (Fix, _ segment: Int) -> Bool
    private let label: String

    private var segment = -1
    private var inPoint = false
    private var pointDepth = 0
    private var candidate = FixCandidate()
    private var hdop: Double?
    private var pdop: Double?
    private var vdop: Double?
    private var malformed = false
    private var capturing: Field?
    private var text = ""
    private var pointLine = 0
    private var documentDepth = 0
    private var sawRoot = false
    private(set) var stoppedByConsumer = false

    private enum Field { case time, elevation, speed, course, hdop, pdop, vdop }

    init(options: GPXOptions, rejections: RejectionCounter, label: String, emit: @escaping (Fix, Int) -> Bool) {
        self.options = options
        self.rejections = rejections
        self.label = label
        self.emit = emit
    }

    /// Parses `data` to the end (or to the first XML error, which is counted), calling `emit` for
    /// each valid track point.
    func parse(_ data: Data) {
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            rejections.record(.emptyInput, at: label)
            return
        }
        // FoundationXML traps on some invalid UTF-8 (seen in comments), so invalid sequences are
        // replaced by U+FFFD first; a damaged number then fails to parse and is counted.
        let parser = XMLParser(data: Self.validUTF8(data))
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = self
        let finished = parser.parse()
        guard !stoppedByConsumer else { return }
        if !finished {
            let reason = parser.parserError.map { ($0 as NSError).localizedDescription } ?? "unknown XML error"
            rejections.record(.malformedXML, at: "\(label):\(parser.lineNumber)", detail: reason)
        } else if !sawRoot || documentDepth != 0 {
            // libxml2 may report success for a document cut short: check that every element closed.
            rejections.record(.malformedXML, at: "\(label):\(parser.lineNumber)", detail: "the document ends before its closing tags")
        }
    }

    private static func validUTF8(_ data: Data) -> Data {
        if String(validating: data, as: UTF8.self) != nil { return data }
        return Data(String(decoding: data, as: UTF8.self).utf8)
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        documentDepth += 1
        sawRoot = true
        let name = elementName.afterLastColon
        if inPoint {
            pointDepth += 1
            switch name {
            case "time": capturing = .time
            case "ele": capturing = .elevation
            case "speed": capturing = .speed
            case "course", "bearing": capturing = .course
            case "hdop": capturing = .hdop
            case "pdop": capturing = .pdop
            case "vdop": capturing = .vdop
            default: capturing = nil
            }
            text = ""
            return
        }
        switch name {
        case "trkseg":
            segment += 1
        case "trkpt":
            if segment < 0 { segment = 0 }
            beginPoint(attributes: attributes, line: parser.lineNumber)
        default:
            break
        }
    }

    private func beginPoint(attributes: [String: String], line: Int) {
        inPoint = true
        pointDepth = 0
        pointLine = line
        candidate = FixCandidate()
        hdop = nil
        pdop = nil
        vdop = nil
        malformed = false
        capturing = nil
        guard let lat = attributes["lat"], let lon = attributes["lon"] else { return }
        guard let latitude = Double(lat.asciiTrimmed), let longitude = Double(lon.asciiTrimmed) else {
            malformed = true
            return
        }
        candidate.latitude = latitude
        candidate.longitude = longitude
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if capturing != nil { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        documentDepth -= 1
        guard inPoint else { return }
        if pointDepth > 0 {
            pointDepth -= 1
            if let field = capturing { store(field) }
            capturing = nil
            return
        }
        inPoint = false
        finishPoint(parser)
    }

    private func store(_ field: Field) {
        let trimmed = text.asciiTrimmed
        if field == .time {
            if let time = UTCTime.parseISO8601(trimmed) { candidate.time = time } else { malformed = true }
            return
        }
        guard let value = Double(trimmed) else {
            malformed = true
            return
        }
        switch field {
        case .time: break
        case .elevation: candidate.altitude = value
        case .speed: candidate.speed = value
        case .course: candidate.course = value
        case .hdop: hdop = value
        case .pdop: pdop = value
        case .vdop: vdop = value
        }
    }

    private func finishPoint(_ parser: XMLParser) {
        let at = "\(label):\(pointLine)"
        if malformed {
            rejections.record(.malformedField, at: at)
            return
        }
        for dop in [hdop, pdop, vdop] {
            if let dop, !(dop.isFinite && dop >= 0) {
                rejections.record(.invalidValue, at: at, detail: "dilution of precision")
                return
            }
        }
        if let dop = hdop ?? pdop { candidate.horizontalAccuracy = dop * options.uere }
        if let vdop { candidate.verticalAccuracy = vdop * options.uere }
        switch candidate.validated(source: .gpx) {
        case let .success(fix):
            if !emit(fix, segment) {
                stoppedByConsumer = true
                parser.abortParsing()
            }
        case let .failure(reason):
            rejections.record(reason, at: at)
        }
    }
}
