import Testing
@testable import WhereaboutsCore

struct GeodesyTests {
    @Test("Haversine matches known great-circle distances")
    func knownDistances() {
        // One degree of latitude on the mean sphere: 2πR/360.
        let oneDegree = Geodesy.distance(Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 1, longitude: 0))
        #expect(abs(oneDegree - 111_195.08) < 0.1)
        // Nashville BNA to Los Angeles LAX: the textbook haversine example, 2887.260 km with
        // R = 6372.8 km, so 2886.449 km with the mean radius used here.
        let bna = Coordinate(latitude: 36.12, longitude: -86.67)
        let lax = Coordinate(latitude: 33.94, longitude: -118.40)
        #expect(abs(Geodesy.distance(bna, lax) - 2_886_449) < 50)
        #expect(Geodesy.distance(bna, bna) == 0)
    }

    @Test("Destination and bearing invert each other")
    func destinationRoundTrip() {
        let start = Coordinate(latitude: 52.66, longitude: -8.63)
        let end = Geodesy.destination(from: start, bearing: 63, distance: 1_234)
        #expect(abs(Geodesy.distance(start, end) - 1_234) < 0.01)
        #expect(abs(Geodesy.bearing(from: start, to: end) - 63) < 0.01)
    }

    @Test("The local projection agrees with haversine within 0.1 % at 10 km")
    func projection() {
        let origin = Coordinate(latitude: 45.8, longitude: 14.36)
        let projection = LocalProjection(origin: origin)
        for bearing in stride(from: 0.0, to: 360, by: 30) {
            let point = Geodesy.destination(from: origin, bearing: bearing, distance: 10_000)
            let (e, n) = projection.project(point)
            #expect(abs((e * e + n * n).squareRoot() - 10_000) < 10)
            let back = projection.unproject(east: e, north: n)
            #expect(Geodesy.distance(back, point) < 0.001)
        }
    }

    @Test("Coordinates outside the valid ranges or not finite are invalid")
    func validity() {
        #expect(Coordinate(latitude: 91, longitude: 0).isValid == false)
        #expect(Coordinate(latitude: .nan, longitude: 0).isValid == false)
        #expect(Coordinate(latitude: 0, longitude: -180.5).isValid == false)
        #expect(Coordinate(latitude: -90, longitude: 180).isValid)
    }
}
