#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemSupport
import Logging
import WhereaboutsCore

/// A position source described in one string, as the publisher's `--source` flag takes it.
///
/// | form | source |
/// |---|---|
/// | `gpsd://HOST:PORT` (`gpsd://`, `gpsd:` for localhost:2947) | ``GpsdSource`` |
/// | `nmea:PATH[?baud=N&uere=M&carry-date=true&replay=SPEED]` (`nmea:-` = stdin) | ``NMEASource`` |
/// | `gpx:PATH[?uere=M&replay=SPEED]` | ``GPXSource`` |
/// | `sim:SCENARIO[?seed=N&lat=D&lon=D&interval=S&count=N&outliers=P&start=now|ISO8601&replay=SPEED]` | ``SimulatorSource`` |
///
/// `SPEED` is `realtime`, `fast` or a factor like `10x` (see ``ReplaySpeed``). GPX, the simulator
/// and NMEA logs in regular files replay at `realtime` unless told otherwise; NMEA from a device,
/// a pipe or stdin is read live unless `replay` is given.
public struct PositionSourceSpec: Sendable, Hashable, CustomStringConvertible {
    /// The kind of source and its options.
    public enum Kind: Sendable, Hashable {
        /// A gpsd daemon.
        case gpsd(GpsdOptions)
        /// NMEA from a path or stdin.
        case nmea(NMEASource.Input, NMEAOptions)
        /// A GPX file.
        case gpx(path: String, GPXOptions)
        /// The simulator; with `startsNow` the first fix is timed when the source is made.
        case simulator(SimulatorOptions, startsNow: Bool)
    }

    /// The accepted forms in a few sentences, for a command's `--help` text.
    static let syntaxSummary = """
        Where fixes come from: gpsd://HOST:PORT (default gpsd://localhost:2947), \
        nmea:PATH for a file or serial device (nmea:- reads stdin; ?baud=4800 by default), \
        gpx:PATH to replay a GPX track, or sim:SCENARIO for the simulator (walk, cycle, drive, still, mixed, spikes; \
        ?seed=N&lat=D&lon=D). Recorded and simulated sources take ?replay=realtime, fast or a factor such as 10x.
        """

    /// What source to make.
    public var kind: Kind
    /// How fast to replay recorded data, or `nil` to read it live (gpsd, a serial NMEA device); an
    /// NMEA path without `replay` that turns out to be a regular file replays at real time.
    public var replay: ReplaySpeed?
    /// The text this was parsed from.
    public let description: String

    /// Parses a `--source` value; the error says what is wrong and what is accepted.
    public init(parsing text: String) throws(PositionSourceSpecError) {
        description = text
        guard let colon = text.firstIndex(of: ":") else { throw .unknownScheme(text) }
        let scheme = String(text[..<colon]).lowercased()
        var rest = String(text[text.index(after: colon)...])
        var query: [(String, String)] = []
        if let mark = rest.firstIndex(of: "?") {
            query = try Self.parseQuery(String(rest[rest.index(after: mark)...]))
            rest = String(rest[..<mark])
        }
        switch scheme {
        case "gpsd":
            try Self.check(query, scheme: scheme, known: [])
            kind = .gpsd(try Self.parseGpsdAddress(rest))
            replay = nil
        case "nmea":
            try Self.check(query, scheme: scheme, known: ["baud", "uere", "carry-date", "replay"])
            guard !rest.isEmpty else { throw .missingPath(scheme: scheme) }
            var options = NMEAOptions()
            for (name, value) in query {
                switch name {
                case "baud":
                    guard let baud = Int(value), SerialPort.supportedBaudRates.contains(baud) else {
                        throw .invalidOption(name: name, value: value, expected: SerialPort.supportedBaudRates.map(String.init).joined(separator: ", "))
                    }
                    options.baudRate = baud
                case "uere": options.uere = try Self.positive(name, value)
                case "carry-date": options.carryDate = try Self.bool(name, value)
                default: break
                }
            }
            kind = .nmea(rest == "-" ? .standardInput : .path(rest), options)
            replay = try Self.replaySpeed(query)
        case "gpx":
            try Self.check(query, scheme: scheme, known: ["uere", "replay"])
            guard !rest.isEmpty else { throw .missingPath(scheme: scheme) }
            var options = GPXOptions()
            if let uere = query.last(where: { $0.0 == "uere" }) { options.uere = try Self.positive(uere.0, uere.1) }
            kind = .gpx(path: rest, options)
            replay = try Self.replaySpeed(query) ?? .realTime
        case "sim":
            try Self.check(query, scheme: scheme, known: ["seed", "lat", "lon", "interval", "count", "outliers", "start", "replay"])
            guard let scenario = SimulationScenario(rawValue: rest.lowercased()) else { throw .unknownScenario(rest) }
            var options = SimulatorOptions(scenario: scenario, count: nil)
            var startsNow = true
            for (name, value) in query {
                switch name {
                case "seed":
                    guard let seed = UInt64(value) else { throw .invalidOption(name: name, value: value, expected: "a whole number from 0 to 2^64-1") }
                    options.seed = seed
                case "lat":
                    guard let lat = Double(value), (-90...90).contains(lat) else { throw .invalidOption(name: name, value: value, expected: "degrees from -90 to 90") }
                    options.start.latitude = lat
                case "lon":
                    guard let lon = Double(value), (-180...180).contains(lon) else { throw .invalidOption(name: name, value: value, expected: "degrees from -180 to 180") }
                    options.start.longitude = lon
                case "interval": options.interval = try Self.positive(name, value)
                case "count":
                    guard let count = Int(value), count >= 0 else { throw .invalidOption(name: name, value: value, expected: "a whole number of fixes, 0 for no end") }
                    options.count = count == 0 ? nil : count
                case "outliers":
                    guard let p = Double(value), (0...1).contains(p) else { throw .invalidOption(name: name, value: value, expected: "a probability from 0 to 1") }
                    options.outlierProbability = p
                case "start":
                    if value.lowercased() == "now" {
                        startsNow = true
                    } else if let date = UTCTime.parseISO8601(value) {
                        options.startTime = date
                        startsNow = false
                    } else {
                        throw .invalidOption(name: name, value: value, expected: "now or an ISO 8601 time such as 2024-05-01T08:00:00Z")
                    }
                default: break
                }
            }
            kind = .simulator(options, startsNow: startsNow)
            replay = try Self.replaySpeed(query) ?? .realTime
        default:
            throw .unknownScheme(scheme)
        }
    }

    /// Makes the source and the clock its consumers must read "now" from: the wall clock for live
    /// sources, a ``ReplayFixClock`` that follows the replayed fixes otherwise.
    ///
    /// - Parameter resumeAfter: For a replay, fixes before this time are handed on without waiting
    ///   (an earlier run already sent them; see ``ReplaySource/resumeAfter``).
    public func makeSource(logger: Logger, resumeAfter: Date? = nil) -> (source: AnyPositionSource, clock: any FixClock) {
        let base: AnyPositionSource
        switch kind {
        case let .gpsd(options): base = AnyPositionSource(GpsdSource(options: options, logger: logger))
        case let .nmea(input, options): base = AnyPositionSource(NMEASource(input: input, options: options, logger: logger))
        case let .gpx(path, options): base = AnyPositionSource(GPXSource(url: URL(fileURLWithPath: path), options: options, logger: logger))
        case let .simulator(options, startsNow):
            var options = options
            if startsNow { options.startTime = Date() }
            base = AnyPositionSource(SimulatorSource(options: options, logger: logger))
        }
        guard let replay = replay ?? defaultReplay else { return (base, WallFixClock()) }
        let replaying = ReplaySource(base, speed: replay, resumeAfter: resumeAfter)
        return (AnyPositionSource(replaying), replaying.clock)
    }

    /// A recorded NMEA log in a regular file replays at real time unless told otherwise; devices,
    /// pipes and stdin are live.
    private var defaultReplay: ReplaySpeed? {
        guard case let .nmea(.path(path), _) = kind,
              let type = try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType,
              type == .typeRegular else { return nil }
        return .realTime
    }

    // MARK: - Parsing helpers

    private static func parseQuery(_ text: String) throws(PositionSourceSpecError) -> [(String, String)] {
        var result: [(String, String)] = []
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw .invalidOption(name: String(pair), value: "", expected: "name=value")
            }
            let value = parts[1].percentDecoded() ?? String(parts[1])
            result.append((String(parts[0]).lowercased(), value))
        }
        return result
    }

    private static func check(_ query: [(String, String)], scheme: String, known: [String]) throws(PositionSourceSpecError) {
        for (name, _) in query where !known.contains(name) {
            throw .unknownOption(name: name, scheme: scheme, known: known.isEmpty ? ["none"] : known)
        }
    }

    private static func parseGpsdAddress(_ text: String) throws(PositionSourceSpecError) -> GpsdOptions {
        var address = text
        if address.hasPrefix("//") { address.removeFirst(2) }
        if address.hasSuffix("/") { address.removeLast() }
        var options = GpsdOptions()
        guard !address.isEmpty else { return options }
        var portText: Substring?
        if address.hasPrefix("[") {
            guard let close = address.firstIndex(of: "]") else { throw .invalidAddress(text, reason: "an IPv6 address needs its closing ]") }
            options.host = String(address[address.index(after: address.startIndex)..<close])
            let after = address[address.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw .invalidAddress(text, reason: "expected :PORT after the IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = address.lastIndex(of: ":") {
            options.host = String(address[..<colon])
            portText = address[address.index(after: colon)...]
        } else {
            options.host = address
        }
        if options.host.isEmpty { options.host = "localhost" }
        guard !options.host.contains(where: { $0 == "/" || $0 == " " || $0 == "@" }) else {
            throw .invalidAddress(text, reason: "'\(options.host)' is not a host name")
        }
        if let portText {
            guard let port = Int(portText), (1...65_535).contains(port) else {
                throw .invalidAddress(text, reason: "the port must be a number from 1 to 65535")
            }
            options.port = port
        }
        return options
    }

    private static func positive(_ name: String, _ value: String) throws(PositionSourceSpecError) -> Double {
        guard let number = Double(value), number.isFinite, number > 0 else {
            throw .invalidOption(name: name, value: value, expected: "a number above 0")
        }
        return number
    }

    private static func bool(_ name: String, _ value: String) throws(PositionSourceSpecError) -> Bool {
        switch value.lowercased() {
        case "true", "yes", "1": return true
        case "false", "no", "0": return false
        default: throw .invalidOption(name: name, value: value, expected: "true or false")
        }
    }

    private static func replaySpeed(_ query: [(String, String)]) throws(PositionSourceSpecError) -> ReplaySpeed? {
        guard let value = query.last(where: { $0.0 == "replay" })?.1 else { return nil }
        guard let speed = ReplaySpeed(value) else {
            throw .invalidOption(name: "replay", value: value, expected: "realtime, fast, or a factor such as 10x")
        }
        return speed
    }
}
