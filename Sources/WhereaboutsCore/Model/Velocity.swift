/// A velocity in a local east/north frame, in metres per second.
public struct Velocity: Sendable, Hashable, Codable {
    /// Eastward component in m/s.
    public var east: Double
    /// Northward component in m/s.
    public var north: Double

    /// Creates a velocity from its east and north components in m/s.
    public init(east: Double, north: Double) {
        self.east = east
        self.north = north
    }

    /// The zero velocity.
    public static let zero = Velocity(east: 0, north: 0)

    /// The speed in m/s.
    public var speed: Double { (east * east + north * north).squareRoot() }
}
