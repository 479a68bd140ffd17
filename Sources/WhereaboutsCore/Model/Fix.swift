#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One position measurement from a position source.
///
/// A `Fix` is a plain value: it says where something was, when, and how sure the source was.
/// Optional fields are `nil` when the source did not provide them; they are never filled with
/// made-up values.
public struct Fix: Sendable, Hashable, Codable {
    /// When the position was measured (the source's time, not the time it was read).
    public var time: Date
    /// Latitude in degrees, WGS 84, in -90...90.
    public var latitude: Double
    /// Longitude in degrees, WGS 84, in -180...180.
    public var longitude: Double
    /// Horizontal accuracy (one-sigma radius) in metres, when the source gives one.
    public var horizontalAccuracy: Double?
    /// Altitude above mean sea level in metres, when known.
    public var altitude: Double?
    /// Vertical accuracy in metres, when known.
    public var verticalAccuracy: Double?
    /// Speed over ground in metres per second, when the source measured it.
    public var speed: Double?
    /// Course over ground in degrees clockwise from true north, in 0..<360, when known.
    public var course: Double?
    /// Where the fix came from.
    public var source: FixSource

    /// Creates a fix; every measurement but time and position is optional.
    public init(
        time: Date,
        latitude: Double,
        longitude: Double,
        horizontalAccuracy: Double? = nil,
        altitude: Double? = nil,
        verticalAccuracy: Double? = nil,
        speed: Double? = nil,
        course: Double? = nil,
        source: FixSource = .unknown
    ) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.altitude = altitude
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
        self.source = source
    }
}
