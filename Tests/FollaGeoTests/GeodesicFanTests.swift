import FollaCore
import FollaGeo
import PropertyBased
import Testing

/// The fan's short lines are Karney's to far below what an answer shows (a millimetre, a
/// thousandth of a degree): anywhere on Earth but at the poles, across the antimeridian, up
/// to its reach; beyond it, and near a pole, they are Karney's exactly.
@Suite struct GeodesicFanTests {
    @Test func shortLinesAreKarneysToAMicrometre() async {
        await propertyCheck(
            count: 2_000,
            input: Gen.double(in: -89.98...89.98), Gen.double(in: -180...180), Gen.double(in: 0..<360),
            Gen.double(in: 0.01...19_000)
        ) { lat, lon, bearing, distance in
            let centre = Coordinate(latitude: lat, longitude: lon)
            let point = Geodesic.wgs84.destination(from: centre, bearing: bearing, distance: distance)
            let exact = Geodesic.wgs84.inverse(from: centre, to: point)
            let ray = GeodesicFan(centre: centre).ray(to: point)
            #expect(abs(ray.distance - exact.distance) < 1e-6, "\(centre) → \(point): \(ray.distance) vs \(exact.distance)")
            #expect(angularDifference(ray.initialBearing, exact.initialBearing) < 1e-6,
                    "\(centre) → \(point): \(ray.initialBearing) vs \(exact.initialBearing)")
            #expect((0..<360).contains(ray.initialBearing) && ray.initialBearing.sign == .plus)
        }
    }

    /// In a dense hotspot, where answers are most frequent, to ten nanometres.
    @Test func linesInAHotspotAreKarneys() async {
        let centre = Coordinate(latitude: 44.4938, longitude: 11.3426)
        let fan = GeodesicFan(centre: centre)
        await propertyCheck(count: 1_000, input: Gen.double(in: -0.004...0.004), Gen.double(in: -0.004...0.004)) { dLat, dLon in
            let point = Coordinate(latitude: centre.latitude + dLat, longitude: centre.longitude + dLon)
            let exact = Geodesic.wgs84.inverse(from: centre, to: point)
            let ray = fan.ray(to: point)
            #expect(abs(ray.distance - exact.distance) < 1e-8, "\(point): \(ray.distance) vs \(exact.distance)")
            #expect(angularDifference(ray.initialBearing, exact.initialBearing) < 1e-6)
        }
    }

    /// Points mirrored across the centre's meridian are equally far to the last bit, as
    /// Karney's inverse has them: answers order ties by position, and a tie that rounding
    /// broke would order them by that instead.
    @Test func mirroredPointsTie() async {
        await propertyCheck(
            count: 500,
            input: Gen.double(in: -89.9...89.9), Gen.double(in: -179...179), Gen.double(in: -0.05...0.05),
            Gen.double(in: 0.0001...0.05)
        ) { lat, lon, dLat, dLon in
            // On a dyadic grid, so that lon ± dLon are exact and the points mirrored exactly.
            let (lon, dLon) = ((lon * 0x1p20).rounded() / 0x1p20, (dLon * 0x1p20).rounded() / 0x1p20)
            let centre = Coordinate(latitude: lat, longitude: lon)
            let fan = GeodesicFan(centre: centre)
            let west = fan.ray(to: Coordinate(latitude: lat + dLat, longitude: lon - dLon))
            let east = fan.ray(to: Coordinate(latitude: lat + dLat, longitude: lon + dLon))
            #expect(west.distance == east.distance, "\(centre) ± \(dLon)")
            #expect(angularDifference(west.initialBearing, 360 - east.initialBearing) < 1e-12)
        }
    }

    /// The edges the random lines rarely reach: across the antimeridian, from a centre on it,
    /// just inside the reach and the polar cut.
    @Test func edgeLinesAreKarneys() {
        let cases: [(Coordinate, Coordinate)] = [
            (Coordinate(latitude: 10, longitude: 179.9999), Coordinate(latitude: 10.0001, longitude: -179.9999)),
            (Coordinate(latitude: -35, longitude: -179.9995), Coordinate(latitude: -35.001, longitude: 179.998)),
            (Coordinate(latitude: 51, longitude: 180), Coordinate(latitude: 51.002, longitude: -179.997)),
            (Coordinate(latitude: 51, longitude: -180), Coordinate(latitude: 50.999, longitude: 179.996)),
            (Coordinate(latitude: 44.4938, longitude: 11.3426),
             Geodesic.wgs84.destination(from: Coordinate(latitude: 44.4938, longitude: 11.3426), bearing: 37, distance: 19_990)),
            (Coordinate(latitude: 89.985, longitude: 40), Coordinate(latitude: 89.9, longitude: 95)),
            (Coordinate(latitude: -89.985, longitude: -120), Coordinate(latitude: -89.95, longitude: -100)),
        ]
        for (centre, point) in cases {
            let exact = Geodesic.wgs84.inverse(from: centre, to: point)
            let ray = GeodesicFan(centre: centre).ray(to: point)
            #expect(abs(ray.distance - exact.distance) < 1e-6, "\(centre) → \(point): \(ray.distance) vs \(exact.distance)")
            #expect(angularDifference(ray.initialBearing, exact.initialBearing) < 1e-6,
                    "\(centre) → \(point): \(ray.initialBearing) vs \(exact.initialBearing)")
        }
    }

    @Test func farAndTinyLinesAndPolesAreSolvedExactly() {
        let cases: [(Coordinate, Coordinate)] = [
            (Coordinate(latitude: 44.4938, longitude: 11.3426), Coordinate(latitude: 44.4938, longitude: 11.3426)),
            (Coordinate(latitude: 44.4938, longitude: 11.3426), Coordinate(latitude: 44.493805, longitude: 11.3426)),
            (Coordinate(latitude: 44.4938, longitude: 11.3426), Coordinate(latitude: 44.7, longitude: 11.3426)),
            (Coordinate(latitude: 89.995, longitude: 20), Coordinate(latitude: 89.99, longitude: -160)),
            (Coordinate(latitude: -90, longitude: 0), Coordinate(latitude: -89.999, longitude: 45)),
        ]
        for (centre, point) in cases {
            let exact = Geodesic.wgs84.inverse(from: centre, to: point)
            #expect(GeodesicFan(centre: centre).ray(to: point) == .init(distance: exact.distance, initialBearing: exact.initialBearing),
                    "\(centre) → \(point)")
        }
    }
}
