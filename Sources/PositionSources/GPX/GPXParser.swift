#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WhereaboutsCore

/// A streaming GPX 1.0 / 1.1 reader over our own ``XMLScanner`` (no libxml2).
///
/// It reads the track points (`<trk>/<trkseg>/<trkpt>`) with `lat`/`lon`, `<time>`, `<ele>`, and,
/// from GPX 1.0 or from any extension element with these local names: `<speed>` (m/s), `<course>`
/// or `<bearing>` (degrees), `<hdop>`, `<pdop>`, `<vdop>`. Namespace prefixes are ignored, so
/// Garmin's `gpxtpx:speed`/`gpxtpx:course` are read as well. Waypoints and routes are not fixes.
final class GPXParser {
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
    private var text: [UInt8] = []
    private var pointLine = 0
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
    func parse(_ data: some ContiguousBytes) {
        record(XMLScanner.scan(data) { (scanner: inout XMLScanner) in readTokens(&scanner) })
    }

    /// Parses what `refill` reads, as a stream through the scanner's bounded window (see
    /// ``XMLScanner/scan(reading:window:windowLimit:maximumDepth:_:)``), like ``parse(_:)``.
    func parse(reading refill: XMLScanner.Refill, window: Int = 64 << 10) {
        record(XMLScanner.scan(reading: refill, window: window) { (scanner: inout XMLScanner) in readTokens(&scanner) })
    }

    /// Reads the tokens to the end; the XML error that ended them, if one did, and whether the
    /// input held nothing but white space.
    private func readTokens(_ scanner: inout XMLScanner) -> (fault: XMLSyntaxError?, blank: Bool) {
        // Bytes from 0x80 up are never decoded by the scanner, so invalid UTF-8 cannot trap; a
        // damaged number simply fails to parse and is counted.
        do throws(XMLSyntaxError) {
            while let token = try scanner.next() {
                switch token {
                case let .startElement(name):
                    startElement(XMLScanner.localName(name), scanner: &scanner)
                case .endElement:
                    endElement()
                    if stoppedByConsumer { return (nil, false) }
                case let .text(bytes):
                    if capturing != nil { text.append(contentsOf: bytes) }
                }
            }
            return (nil, false)
        } catch {
            return (error, scanner.isBlank)
        }
    }

    private func record(_ outcome: (fault: XMLSyntaxError?, blank: Bool)) {
        guard let fault = outcome.fault else { return }
        if outcome.blank {
            rejections.record(.emptyInput, at: label)
        } else {
            rejections.record(.malformedXML, at: "\(label):\(fault.line)", detail: fault.reason)
        }
    }

    private func startElement(_ name: UnsafeBufferPointer<UInt8>, scanner: inout XMLScanner) {
        if inPoint {
            pointDepth += 1
            capturing = Self.field(named: name)
            text.removeAll(keepingCapacity: true)
            return
        }
        if name.equals("trkseg") {
            segment += 1
        } else if name.equals("trkpt") {
            if segment < 0 { segment = 0 }
            beginPoint(lat: scanner.value(of: "lat"), lon: scanner.value(of: "lon"), line: scanner.currentLine())
        }
    }

    private static func field(named name: UnsafeBufferPointer<UInt8>) -> Field? {
        switch name.count {
        case 3: return name.equals("ele") ? .elevation : nil
        case 4:
            if name.equals("time") { return .time }
            if name.equals("hdop") { return .hdop }
            if name.equals("pdop") { return .pdop }
            if name.equals("vdop") { return .vdop }
            return nil
        case 5: return name.equals("speed") ? .speed : nil
        case 6: return name.equals("course") ? .course : nil
        case 7: return name.equals("bearing") ? .course : nil
        default: return nil
        }
    }

    private func beginPoint(lat: String?, lon: String?, line: Int) {
        inPoint = true
        pointDepth = 0
        pointLine = line
        candidate = FixCandidate()
        hdop = nil
        pdop = nil
        vdop = nil
        malformed = false
        capturing = nil
        guard let lat, let lon else { return }
        guard let latitude = Double(lat.asciiTrimmed), let longitude = Double(lon.asciiTrimmed) else {
            malformed = true
            return
        }
        candidate.latitude = latitude
        candidate.longitude = longitude
    }

    private func endElement() {
        guard inPoint else { return }
        if pointDepth > 0 {
            pointDepth -= 1
            if let field = capturing { store(field) }
            capturing = nil
            return
        }
        inPoint = false
        finishPoint()
    }

    private func store(_ field: Field) {
        let trimmed = String(decoding: text, as: UTF8.self).asciiTrimmed
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

    private func finishPoint() {
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
            if !emit(fix, segment) { stoppedByConsumer = true }
        case let .failure(reason):
            rejections.record(reason, at: at)
        }
    }
}

private extension UnsafeBufferPointer<UInt8> {
    /// Whether these bytes are exactly the ASCII `literal`.
    func equals(_ literal: StaticString) -> Bool {
        count == literal.utf8CodeUnitCount && elementsEqual(UnsafeBufferPointer(start: literal.utf8Start, count: count))
    }
}
