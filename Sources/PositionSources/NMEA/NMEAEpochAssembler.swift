import Foundation
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
///   ``RejectionReason/missingDate`` unless ``NMEAOptions/carryDate`` dates it from the last RMC
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
        lineNumber += 1
        switch NMEASentence.parse(line) {
        case .ignored:
            if !line.trimmingASCIIWhitespace().isEmpty { sawInput = true }
        case let .rejected(reason):
            sawInput = true
            rejections.record(reason, at: "\(label):\(lineNumber)")
        case let .sentence(sentence):
            sawInput = true
            switch merge(sentence, emit: emit) {
            case .success: break
            case let .failure(reason):
                rejections.record(reason, at: "\(label):\(lineNumber)", detail: "\(sentence.talker)\(sentence.type)")
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

    private mutating func merge(_ sentence: NMEASentence, emit: (Fix) -> Void) -> Result<Void, RejectionReason> {
        let f = sentence.fields
        switch sentence.type {
        case "RMC":
            guard f.count >= 9 else { return .failure(.truncated) }
            guard let time = NMEAFields.timeOfDay(f[0]) else { return .failure(f[0].isEmpty ? .truncated : .malformedField) }
            guard let day = NMEAFields.date(f[8]) else { return .failure(f[8].isEmpty ? .truncated : .malformedField) }
            let valid = f[1] == "A" && (f.count < 12 || f[11] != "N")
            var position: (latitude: Double, longitude: Double)?
            if valid {
                guard !f[2].isEmpty, !f[4].isEmpty else { return .failure(.truncated) }
                switch Self.position(f[2], f[3], f[4], f[5]) {
                case let .success(value): position = value
                case let .failure(reason): return .failure(reason)
                }
            }
            guard case let .success(knots) = NMEAFields.optionalNumber(f[6]),
                  case let .success(course) = NMEAFields.optionalNumber(f[7]) else { return .failure(.malformedField) }
            guard begin(time: time, repeating: epoch.hasRMC, emit: emit) else { return .success(()) }
            epoch.hasRMC = true
            epoch.day = day
            if let position { epoch.rmcPosition = position } else { epoch.saidNoFix = true }
            epoch.rmcSpeed = knots.map { $0 * Self.metresPerSecondPerKnot }
            epoch.rmcCourse = course
        case "GGA":
            guard f.count >= 9 else { return .failure(.truncated) }
            guard let time = NMEAFields.timeOfDay(f[0]) else { return .failure(f[0].isEmpty ? .truncated : .malformedField) }
            guard let quality = Int(f[5]) else { return .failure(f[5].isEmpty ? .truncated : .malformedField) }
            var position: (latitude: Double, longitude: Double)?
            if quality > 0 {
                guard !f[1].isEmpty, !f[3].isEmpty else { return .failure(.truncated) }
                switch Self.position(f[1], f[2], f[3], f[4]) {
                case let .success(value): position = value
                case let .failure(reason): return .failure(reason)
                }
            }
            guard case let .success(hdop) = NMEAFields.optionalNumber(f[7]),
                  case let .success(altitude) = NMEAFields.optionalNumber(f[8]) else { return .failure(.malformedField) }
            guard begin(time: time, repeating: epoch.hasGGA, emit: emit) else { return .success(()) }
            epoch.hasGGA = true
            if let position {
                epoch.ggaPosition = position
                epoch.altitude = altitude
                epoch.ggaHDOP = hdop
            } else {
                epoch.saidNoFix = true
            }
        case "GSA":
            guard f.count >= 17 else { return .failure(.truncated) }
            guard case let .success(pdop) = NMEAFields.optionalNumber(f[14]),
                  case let .success(hdop) = NMEAFields.optionalNumber(f[15]),
                  case let .success(vdop) = NMEAFields.optionalNumber(f[16]) else { return .failure(.malformedField) }
            epoch.isEmpty = false
            if f[1] == "1" {
                epoch.saidNoFix = true
            } else {
                epoch.gsaPDOP = pdop ?? epoch.gsaPDOP
                epoch.gsaHDOP = hdop ?? epoch.gsaHDOP
                epoch.gsaVDOP = vdop ?? epoch.gsaVDOP
            }
        case "VTG":
            // NMEA 2.3+: course,T,course,M,knots,N,kmh,K[,mode]; before 2.3: course,course,knots,kmh.
            let modern = f.count >= 8 && f[1] == "T"
            guard modern || f.count >= 4 else { return .failure(.truncated) }
            let (courseField, knotsField, kmhField) = modern ? (f[0], f[4], f[6]) : (f[0], f[2], f[3])
            guard case let .success(course) = NMEAFields.optionalNumber(courseField),
                  case let .success(knots) = NMEAFields.optionalNumber(knotsField),
                  case let .success(kmh) = NMEAFields.optionalNumber(kmhField) else { return .failure(.malformedField) }
            if modern, f.count >= 9, f[8] == "N" { return .success(()) }
            epoch.isEmpty = false
            epoch.vtgCourse = course
            epoch.vtgSpeed = kmh.map { $0 / 3.6 } ?? knots.map { $0 * Self.metresPerSecondPerKnot }
        default:
            break
        }
        return .success(())
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

    /// A sentence's position, checked on its own so that one bad sentence does not spoil its epoch.
    private static func position(
        _ lat: Substring, _ ns: Substring, _ lon: Substring, _ ew: Substring
    ) -> Result<(latitude: Double, longitude: Double), RejectionReason> {
        guard let latitude = NMEAFields.angle(lat, hemisphere: ns), let longitude = NMEAFields.angle(lon, hemisphere: ew),
              ns == "N" || ns == "S", ew == "E" || ew == "W" else { return .failure(.malformedField) }
        guard Coordinate(latitude: latitude, longitude: longitude).isValid else { return .failure(.invalidCoordinate) }
        return .success((latitude, longitude))
    }

    private static let metresPerSecondPerKnot = 1852.0 / 3600.0

    // MARK: - Building the fix

    private mutating func build(_ e: NMEAEpoch) -> Fix? {
        let at = "\(label):\(e.line)"
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
            if e.saidNoFix { rejections.record(.noFix, at: at) }
            return nil
        }
        guard let day else {
            rejections.record(.missingDate, at: at)
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
            rejections.record(reason, at: at)
            return nil
        }
    }
}
