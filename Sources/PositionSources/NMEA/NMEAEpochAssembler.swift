#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WhereaboutsCore

/// Turns a stream of NMEA lines into fixes, one per epoch.
///
/// An epoch is the set of sentences with the same UTC time: RMC and GGA carry the time; GSA and
/// VTG, which do not, belong to the epoch being assembled when they arrive. A timed sentence with a
/// different time, or a second RMC or GGA (a receiver repeating itself, or one whose times have no
/// fractions at more than 1 Hz), closes the epoch and a fix is built from it:
/// - position from RMC (status A) or else GGA (quality > 0); altitude (MSL) from GGA;
/// - speed and course from RMC, or else VTG (km/h preferred over knots);
/// - horizontal accuracy = HDOP (GSA, else GGA) x UERE, or PDOP x UERE; vertical = VDOP x UERE;
/// - the date from the epoch's RMC; an epoch without one is rejected as
///   ``SourceRejectionReason/missingDate`` unless ``NMEAOptions/carryDate`` dates it from the last RMC
///   (rolling over at midnight).
struct NMEAEpochAssembler {
    let options: NMEAOptions
    let rejections: RejectionCounter
    let label: String

    private var epoch = NMEAEpoch()
    private var lastDay: Int?
    private var lastTimeOfDay: Double?
    private var lastIssuedTime: Double?
    private var flushedWhileIdle = false
    private var lineNumber = 0
    private(set) var sawInput = false

    init(options: NMEAOptions, rejections: RejectionCounter, label: String) {
        self.options = options
        self.rejections = rejections
        self.label = label
    }

    /// Reads one line; `emit` receives the fix of an epoch this line closed, if any.
    mutating func consume(_ line: Substring, emit: (Fix) -> Void) {
        consume(ArraySlice(line.utf8), emit: emit)
    }

    /// Reads one line of bytes; `emit` receives the fix of an epoch this line closed, if any.
    mutating func consume(_ line: ArraySlice<UInt8>, emit: (Fix) -> Void) {
        lineNumber += 1
        switch NMEASentence.parse(line) {
        case .ignored:
            if !line.asciiTrimmed.isEmpty { sawInput = true }
        case let .rejected(reason):
            sawInput = true
            rejections.record(reason, at: "\(label):\(lineNumber)")
        case let .sentence(sentence):
            sawInput = true
            do {
                try merge(sentence, emit: emit)
            } catch {
                rejections.record(error, at: "\(label):\(lineNumber)", detail: "\(sentence.talker)\(sentence.type)")
            }
        }
    }

    /// Counts a line that was too long to read (the reader dropped it).
    mutating func rejectOversizeLine() {
        lineNumber += 1
        sawInput = true
        rejections.record(.oversizeLine, at: "\(label):\(lineNumber)")
    }

    /// Issues the epoch being assembled because a live source went quiet; late sentences of the
    /// same time are then ignored rather than issued as a second fix.
    mutating func flushIdle(emit: (Fix) -> Void) {
        guard !epoch.isEmpty else { return }
        flush(emit: emit)
        flushedWhileIdle = true
    }

    /// Issues the epoch being assembled (at the end of the input, or when the next one begins).
    mutating func flush(emit: (Fix) -> Void) {
        let finished = epoch
        epoch = NMEAEpoch()
        guard !finished.isEmpty else { return }
        if let fix = build(finished) { emit(fix) }
    }

    /// Marks the end of the input: flushes and counts an input with nothing in it.
    mutating func finish(emit: (Fix) -> Void) {
        flush(emit: emit)
        if !sawInput { rejections.record(.emptyInput, at: label) }
    }

    // MARK: - Merging sentences

    private mutating func merge(_ sentence: NMEASentence, emit: (Fix) -> Void) throws(SourceRejectionReason) {
        let f = sentence.fields
        switch sentence.type {
        case "RMC":
            guard f.count >= 9 else { throw .truncated }
            let time = try Self.required(f[0], NMEAFields.timeOfDay)
            let day = try Self.required(f[8], NMEAFields.date)
            let position = try Self.position(in: f, from: 2, when: f[1].isCharacter("A") && (f.count < 12 || !f[11].isCharacter("N")))
            let knots = try NMEAFields.optionalNumber(f[6])
            let course = try NMEAFields.optionalNumber(f[7])
            guard begin(time: time, repeating: epoch.hasRMC, emit: emit) else { return }
            epoch.hasRMC = true
            epoch.day = day
            if let position { epoch.rmcPosition = position } else { epoch.saidNoFix = true }
            epoch.rmcSpeed = knots.map { $0 * Self.metresPerSecondPerKnot }
            epoch.rmcCourse = course
        case "GGA":
            guard f.count >= 9 else { throw .truncated }
            let time = try Self.required(f[0], NMEAFields.timeOfDay)
            let quality = try Self.required(f[5]) { NMEAFields.decimal($0, allowSign: false).flatMap { $0 == $0.rounded() ? Int($0) : nil } }
            let position = try Self.position(in: f, from: 1, when: quality > 0)
            let hdop = try NMEAFields.optionalNumber(f[7])
            let altitude = try NMEAFields.optionalNumber(f[8])
            guard begin(time: time, repeating: epoch.hasGGA, emit: emit) else { return }
            epoch.hasGGA = true
            if let position {
                epoch.ggaPosition = position
                epoch.altitude = altitude
                epoch.ggaHDOP = hdop
            } else {
                epoch.saidNoFix = true
            }
        case "GSA":
            guard f.count >= 17 else { throw .truncated }
            let pdop = try NMEAFields.optionalNumber(f[14])
            let hdop = try NMEAFields.optionalNumber(f[15])
            let vdop = try NMEAFields.optionalNumber(f[16])
            epoch.isEmpty = false
            if f[1].isCharacter("1") {
                epoch.saidNoFix = true
            } else {
                epoch.gsaPDOP = pdop ?? epoch.gsaPDOP
                epoch.gsaHDOP = hdop ?? epoch.gsaHDOP
                epoch.gsaVDOP = vdop ?? epoch.gsaVDOP
            }
        case "VTG":
            // NMEA 2.3+: course,T,course,M,knots,N,kmh,K[,mode]; before 2.3: course,course,knots,kmh.
            let modern = f.count >= 8 && f[1].isCharacter("T")
            guard modern || f.count >= 4 else { throw .truncated }
            let (courseField, knotsField, kmhField) = modern ? (f[0], f[4], f[6]) : (f[0], f[2], f[3])
            let course = try NMEAFields.optionalNumber(courseField)
            let knots = try NMEAFields.optionalNumber(knotsField)
            let kmh = try NMEAFields.optionalNumber(kmhField)
            if modern, f.count >= 9, f[8].isCharacter("N") { return }
            epoch.isEmpty = false
            epoch.vtgCourse = course
            epoch.vtgSpeed = kmh.map { $0 / 3.6 } ?? knots.map { $0 * Self.metresPerSecondPerKnot }
        default:
            break
        }
    }

    /// A field that must be present and of its format: empty is truncation, anything else malformed.
    private static func required<T>(_ field: NMEAField, _ parse: (NMEAField) -> T?) throws(SourceRejectionReason) -> T {
        guard let value = parse(field) else { throw field.isEmpty ? .truncated : .malformedField }
        return value
    }

    /// Starts the epoch of a timed sentence, closing the previous one when the time differs or the
    /// sentence type repeats. Returns `false` when the sentence belongs to an epoch already issued
    /// because the source went quiet (a late sentence after an idle flush); it is then ignored.
    private mutating func begin(time: Double, repeating: Bool, emit: (Fix) -> Void) -> Bool {
        if let current = epoch.timeOfDay, abs(current - time) > 1e-6 || repeating {
            flush(emit: emit)
        }
        if epoch.timeOfDay == nil {
            if flushedWhileIdle, let issued = lastIssuedTime, abs(issued - time) <= 1e-6 { return false }
            flushedWhileIdle = false
            epoch.timeOfDay = time
            epoch.line = lineNumber
        }
        epoch.isEmpty = false
        return true
    }

    /// The position in the four fields from `index` (lat, N/S, lon, E/W) when the sentence says it
    /// has a fix, checked on its own so that one bad sentence does not spoil its epoch.
    private static func position(
        in f: [NMEAField], from index: Int, when valid: Bool
    ) throws(SourceRejectionReason) -> (latitude: Double, longitude: Double)? {
        guard valid else { return nil }
        let (lat, ns, lon, ew) = (f[index], f[index + 1], f[index + 2], f[index + 3])
        guard !lat.isEmpty, !lon.isEmpty else { throw .truncated }
        guard let latitude = NMEAFields.angle(lat, hemisphere: ns), let longitude = NMEAFields.angle(lon, hemisphere: ew),
              ns.isCharacter("N") || ns.isCharacter("S"), ew.isCharacter("E") || ew.isCharacter("W") else { throw .malformedField }
        guard Coordinate(latitude: latitude, longitude: longitude).isValid else { throw .invalidCoordinate }
        return (latitude, longitude)
    }

    private static let metresPerSecondPerKnot = 1852.0 / 3600.0

    // MARK: - Building the fix

    private mutating func build(_ e: NMEAEpoch) -> Fix? {
        let (label, line) = (label, e.line)
        func at() -> String { "\(label):\(line)" }
        guard let timeOfDay = e.timeOfDay else { return nil }  // only GSA/VTG: nothing to date or place
        lastIssuedTime = timeOfDay
        let day: Int?
        if let own = e.day {
            day = own
        } else if options.carryDate, let lastDay, let lastTimeOfDay {
            day = timeOfDay + 43_200 < lastTimeOfDay ? lastDay + 1 : lastDay
        } else {
            day = nil
        }
        if let day {
            lastDay = day
            lastTimeOfDay = timeOfDay
        }
        guard let position = e.position else {
            if e.saidNoFix { rejections.record(.noFix, at: at()) }
            return nil
        }
        guard let day else {
            rejections.record(.missingDate, at: at())
            return nil
        }
        var candidate = FixCandidate()
        candidate.time = Date(timeIntervalSince1970: Double(day) * 86_400 + timeOfDay)
        candidate.latitude = position.latitude
        candidate.longitude = position.longitude
        candidate.altitude = e.ggaPosition != nil ? e.altitude : nil
        candidate.speed = e.rmcSpeed ?? e.vtgSpeed
        candidate.course = e.rmcCourse ?? e.vtgCourse
        if let dop = e.gsaHDOP ?? e.ggaHDOP ?? e.gsaPDOP { candidate.horizontalAccuracy = dop * options.uere }
        if let vdop = e.gsaVDOP { candidate.verticalAccuracy = vdop * options.uere }
        switch candidate.validated(source: .nmea) {
        case let .success(fix):
            return fix
        case let .failure(reason):
            rejections.record(reason, at: at())
            return nil
        }
    }
}
