#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WhereaboutsCore

/// The fields of a fix as a parser collects them, before they are checked.
///
/// Parsers fill a candidate and call ``validated(source:)``: a fix is built only when every field
/// present is sane, so no half-parsed or impossible fix ever leaves a source.
struct FixCandidate {
    var time: Date?
    var latitude: Double?
    var longitude: Double?
    var horizontalAccuracy: Double?
    var altitude: Double?
    var verticalAccuracy: Double?
    var speed: Double?
    var course: Double?

    /// The fix, or the reason it cannot be one.
    func validated(source: FixSource) -> Result<Fix, SourceRejectionReason> {
        guard let latitude, let longitude else { return .failure(.truncated) }
        guard Coordinate(latitude: latitude, longitude: longitude).isValid else { return .failure(.invalidCoordinate) }
        guard let time else { return .failure(.missingTime) }
        guard time.timeIntervalSince1970.isFinite else { return .failure(.malformedField) }
        for value in [horizontalAccuracy, verticalAccuracy, speed] {
            if let value, !(value.isFinite && value >= 0) { return .failure(.invalidValue) }
        }
        if let altitude, !altitude.isFinite { return .failure(.invalidValue) }
        var normalisedCourse: Double?
        if let course {
            guard course.isFinite else { return .failure(.invalidValue) }
            let wrapped = course.truncatingRemainder(dividingBy: 360)
            normalisedCourse = wrapped < 0 ? wrapped + 360 : wrapped
        }
        return .success(Fix(
            time: time,
            latitude: latitude,
            longitude: longitude,
            horizontalAccuracy: horizontalAccuracy,
            altitude: altitude,
            verticalAccuracy: verticalAccuracy,
            speed: speed,
            course: normalisedCourse,
            source: source
        ))
    }
}
