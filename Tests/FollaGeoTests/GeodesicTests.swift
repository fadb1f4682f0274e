import FollaCore
import FollaGeo
import PropertyBased
import Testing

@Suite struct GeodesicTests {
    let geodesic = Geodesic.wgs84

    @Test func inverseMatchesGeographicLib() throws {
        let rows = try ReferenceTable.rows("geodesic/inverse.csv")
        #expect(rows.count >= 10)
        for (name, v) in rows {
            let line = geodesic.inverse(
                from: Coordinate(latitude: v[0], longitude: v[1]), to: Coordinate(latitude: v[2], longitude: v[3]))
            #expect(abs(line.distance - v[4]) < 1e-6, "\(name): distance \(line.distance) vs \(v[4])")
            #expect(angularDifference(line.initialBearing, v[5]) < 1e-9, "\(name): azi1 \(line.initialBearing) vs \(v[5])")
            #expect(angularDifference(line.finalBearing, v[6]) < 1e-9, "\(name): azi2 \(line.finalBearing) vs \(v[6])")
            #expect((0..<360).contains(line.initialBearing), "\(name): bearing not normalized")
        }
    }

    @Test func directMatchesGeographicLib() throws {
        let rows = try ReferenceTable.rows("geodesic/direct.csv")
        #expect(rows.count >= 5)
        for (name, v) in rows {
            let end = geodesic.destination(from: Coordinate(latitude: v[0], longitude: v[1]), bearing: v[2], distance: v[3])
            #expect(abs(end.latitude - v[4]) < 1e-10, "\(name): lat \(end.latitude) vs \(v[4])")
            #expect(angularDifference(end.longitude, v[5]) < 1e-10, "\(name): lon \(end.longitude) vs \(v[5])")
        }
    }

    /// Bearings are in [0, 360) with no negative zero: a place due north, or at the centre
    /// itself, answered `"bearing_deg": -0.0` (an outside fuzzer, session 23).
    @Test func bearingsAreNeverNegativeZeroOr360() {
        for centre in [Coordinate(latitude: 44.4938, longitude: 11.3430), Coordinate(latitude: -33.9, longitude: -18.4),
                       Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: -0.0, longitude: -0.0),
                       Coordinate(latitude: 10, longitude: -179.99), Coordinate(latitude: -45, longitude: 180)] {
            for to in [centre, Coordinate(latitude: centre.latitude + 0.01, longitude: centre.longitude),
                       Coordinate(latitude: centre.latitude - 0.01, longitude: centre.longitude),
                       Coordinate(latitude: centre.latitude, longitude: -centre.longitude)] {
                let b = Geodesic.wgs84.inverse(from: centre, to: to).initialBearing
                #expect(b >= 0 && b < 360 && b.sign == .plus, "\(centre) → \(to): \(b)")
            }
        }
    }

    /// The original's EPSG:32661 distances were about 17 % long at Bologna; ours must not be.
    @Test func bolognaToFanoIsNotStereographic() {
        let d = geodesic.distance(
            from: Coordinate(latitude: 44.4938, longitude: 11.3430), to: Coordinate(latitude: 43.8436, longitude: 13.0175))
        #expect(abs(d - 152_164.356) < 0.001)
    }

    @Test func directThenInverseRoundTrips() async {
        await propertyCheck(
            count: 300,
            input: Gen.double(in: -89...89), Gen.double(in: -180...180), Gen.double(in: 0..<360),
            Gen.double(in: 0.5...5_000_000)
        ) { lat, lon, bearing, distance in
            let start = Coordinate(latitude: lat, longitude: lon)
            let end = geodesic.destination(from: start, bearing: bearing, distance: distance)
            let back = geodesic.inverse(from: start, to: end)
            #expect(abs(back.distance - distance) < 1e-6)
            #expect(angularDifference(back.initialBearing, bearing) < 1e-6)
        }
    }

    @Test func distanceIsSymmetric() async {
        await propertyCheck(
            count: 200,
            input: Gen.double(in: -90...90), Gen.double(in: -180...180), Gen.double(in: -90...90),
            Gen.double(in: -180...180)
        ) { a, b, c, d in
            let p = Coordinate(latitude: a, longitude: b), q = Coordinate(latitude: c, longitude: d)
            #expect(abs(geodesic.distance(from: p, to: q) - geodesic.distance(from: q, to: p)) < 1e-6)
        }
    }
}
