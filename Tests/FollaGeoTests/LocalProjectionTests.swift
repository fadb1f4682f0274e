import FollaGeo
import PropertyBased
import Testing

@Suite struct LocalProjectionTests {
    @Test func centreMapsToOrigin() throws {
        let centre = Coordinate(latitude: 44.4938, longitude: 11.3430)
        let plane = try LocalProjection(centre: centre)
        let p = try plane.forward(centre)
        #expect(abs(p.x) < 1e-6 && abs(p.y) < 1e-6)
    }

    /// Azimuthal equidistant: the distance from the centre is the geodesic distance, and
    /// the direction is the geodesic bearing. Checked against PROJ's geodesic, an
    /// independent code path inside PROJ.
    @Test func distancesFromCentreAreGeodesic() throws {
        let centre = Coordinate(latitude: 44.4938, longitude: 11.3430)
        let plane = try LocalProjection(centre: centre)
        for (bearing, distance) in [(0.0, 1000.0), (90.0, 2500.0), (225.0, 4000.0), (333.0, 12.5)] {
            let target = Geodesic.wgs84.destination(from: centre, bearing: bearing, distance: distance)
            let p = try plane.forward(target)
            #expect(abs(p.distance(to: PlanarPoint(x: 0, y: 0)) - distance) < 1e-6)
        }
        // Axis order: a point due east must have positive x and ~0 y.
        let east = try plane.forward(Geodesic.wgs84.destination(from: centre, bearing: 90, distance: 100))
        #expect(east.x > 99.9 && abs(east.y) < 0.01)
    }

    @Test func roundTripIsBelowOneMillimetre() async {
        await propertyCheck(
            count: 200,
            input: Gen.double(in: -85...85), Gen.double(in: -180...180), Gen.double(in: 0..<360),
            Gen.double(in: 0...20_000)
        ) { lat, lon, bearing, distance in
            let centre = Coordinate(latitude: lat, longitude: lon)
            let plane = try #require(try? LocalProjection(centre: centre))
            let point = Geodesic.wgs84.destination(from: centre, bearing: bearing, distance: distance)
            let back = try #require(try? plane.inverse(plane.forward(point)))
            #expect(Geodesic.wgs84.distance(from: point, to: back) < 0.001)
        }
    }

    @Test func rejectsInvalidCentre() {
        #expect(throws: GeoError.self) { try LocalProjection(centre: Coordinate(latitude: .nan, longitude: 0)) }
        #expect(throws: GeoError.self) { try LocalProjection(centre: Coordinate(latitude: 91, longitude: 0)) }
    }
}
