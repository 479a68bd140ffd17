// Measures how fast whole recorded tracks load: a 200,000-fix GPX 1.1 file and a 200,000-epoch
// NMEA log, both written from the simulator into a temporary folder.
//
// Baselines measured in the same run: for GPX, Foundation's XMLParser with a delegate that does
// nothing (the cost of the XML parsing alone); for NMEA, splitting the file into lines and
// checking each checksum without assembling anything.
//
// Run: swift run -c release SourcesBenchmark [fixes]
//      swift run -c release SourcesBenchmark memory FILE.gpx   (peak memory, streamed vs whole)
import Foundation
import Logging
import PositionSources
import WhereaboutsCore
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Writes a GPX and an NMEA file of `count` simulated fixes into a temporary folder and prints how
/// fast GPXFile.read and NMEAFile.read load them, each against its baseline.
func runReadBenchmark(count: Int) throws {
    let logger = Logger(label: "sources-benchmark", factory: { _ in SwiftLogNoOpLogHandler() })
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sources-benchmark-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }

    let fixes = Array(Simulator(options: SimulatorOptions(scenario: .mixed, seed: 1, count: count)))

    // MARK: Write the inputs.

    var gpx = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
    gpx += #"<gpx version="1.1" creator="sources-benchmark" xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2"><trk><trkseg>"# + "\n"
    let formatter = ISO8601DateFormatter()
    for fix in fixes {
        gpx += "<trkpt lat=\"\(String(format: "%.7f", fix.latitude))\" lon=\"\(String(format: "%.7f", fix.longitude))\">"
        gpx += "<ele>\(String(format: "%.1f", fix.altitude ?? 0))</ele><time>\(formatter.string(from: fix.time))</time>"
        gpx += "<extensions><gpxtpx:TrackPointExtension><gpxtpx:speed>\(String(format: "%.2f", fix.speed ?? 0))</gpxtpx:speed></gpxtpx:TrackPointExtension></extensions></trkpt>\n"
    }
    gpx += "</trkseg></trk></gpx>\n"
    let gpxURL = folder.appendingPathComponent("track.gpx")
    try gpx.write(to: gpxURL, atomically: false, encoding: .utf8)

    var nmea = ""
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    for fix in fixes {
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: fix.time)
        let time = String(format: "%02d%02d%02d.00", c.hour!, c.minute!, c.second!)
        let date = String(format: "%02d%02d%02d", c.day!, c.month!, c.year! % 100)
        let lat = angle(fix.latitude, "N", "S", degreeDigits: 2)
        let lon = angle(fix.longitude, "E", "W", degreeDigits: 3)
        nmea += sentence("GPRMC,\(time),A,\(lat),\(lon),\(String(format: "%.1f", (fix.speed ?? 0) / 0.514444)),\(String(format: "%.1f", fix.course ?? 0)),\(date),,,A")
        nmea += sentence("GPGGA,\(time),\(lat),\(lon),1,10,0.9,\(String(format: "%.1f", fix.altitude ?? 0)),M,46.8,M,,")
        nmea += sentence("GPGSA,A,3,01,02,03,04,05,06,07,08,09,10,,,1.6,0.9,1.3")
    }
    let nmeaURL = folder.appendingPathComponent("track.nmea")
    try nmea.write(to: nmeaURL, atomically: false, encoding: .utf8)

    // MARK: Measure.

    let xmlBaseline = try best(of: 3) {
        let parser = XMLParser(data: try Data(contentsOf: gpxURL))
        let delegate = NothingDelegate()
        parser.delegate = delegate
        _ = parser.parse()
        return delegate.elements
    }
    let gpxRead = try best(of: 3) { try GPXFile.read(contentsOf: gpxURL, logger: logger).fixes.count }
    let lineBaseline = try best(of: 3) {
        let text = String(decoding: try Data(contentsOf: nmeaURL), as: UTF8.self)
        var good = 0
        for line in text.utf8.split(separator: 0x0A) {
            guard let star = line.lastIndex(of: UInt8(ascii: "*")) else { continue }
            var sum: UInt8 = 0
            for byte in line[line.index(after: line.startIndex)..<star] { sum ^= byte }
            if UInt8(String(decoding: line[line.index(after: star)...].prefix(2), as: UTF8.self), radix: 16) == sum { good += 1 }
        }
        return good
    }
    let nmeaRead = try best(of: 3) { try NMEAFile.read(contentsOf: nmeaURL, logger: logger).fixes.count }
    let nmeaRejections = try NMEAFile.read(contentsOf: nmeaURL, logger: logger).rejections

    print("fixes: \(count)")
    print(String(format: "GPX  %.1f MB: GPXFile.read %.3f s (%d fixes); XMLParser alone %.3f s; ratio %.2f",
                 mb(gpxURL), gpxRead.seconds, gpxRead.result, xmlBaseline.seconds, gpxRead.seconds / xmlBaseline.seconds))
    print(String(format: "NMEA %.1f MB: NMEAFile.read %.3f s (%d fixes); split+checksum alone %.3f s; ratio %.2f",
                 mb(nmeaURL), nmeaRead.seconds, nmeaRead.result, lineBaseline.seconds, nmeaRead.seconds / lineBaseline.seconds))
    print("NMEA rejections: \(nmeaRejections.sorted.map { "\($0.reason.rawValue) \($0.count)" })")
}

func iso(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    return formatter.string(from: date)
}

func sentence(_ body: String) -> String {
    let sum = body.utf8.reduce(UInt8(0), ^)
    return "$" + body + "*" + String(format: "%02X", sum) + "\r\n"
}

func angle(_ value: Double, _ positive: String, _ negative: String, degreeDigits: Int) -> String {
    let magnitude = abs(value)
    var degrees = Int(magnitude)
    var minutes = ((magnitude - Double(degrees)) * 60 * 10_000).rounded() / 10_000
    if minutes >= 60 {  // 59.99996 would print as 60.0000, which a reader rightly rejects
        degrees += 1
        minutes = 0
    }
    return String(format: "%0\(degreeDigits)d%07.4f,%@", degrees, minutes, value >= 0 ? positive : negative)
}

final class NothingDelegate: NSObject, XMLParserDelegate {
    var elements = 0
    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        elements += 1
    }
}

func best(of runs: Int, _ body: () throws -> Int) rethrows -> (seconds: Double, result: Int) {
    var fastest = Double.infinity
    var result = 0
    for _ in 0..<runs {
        let start = ContinuousClock.now
        result = try body()
        let elapsed = ContinuousClock.now - start
        fastest = min(fastest, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    }
    return (fastest, result)
}

func mb(_ url: URL) -> Double {
    Double((try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0) / 1_000_000
}
