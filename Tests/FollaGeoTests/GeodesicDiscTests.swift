import FollaGeo
import PropertyBased
import Testing

@Suite struct GeodesicDiscTests {
    let geodesic = Geodesic.wgs84

    /// The disc's one promise: a point within the radius is never left out, anywhere on the
    /// globe (inside the plane's domain and out of it), at any bearing, up to the radius itself.
    @Test func neverLeavesOutAPointWithinTheRadius() async {
        await propertyCheck(
            count: 2_000,
            input: Gen.double(in: -89.9...89.9), Gen.double(in: -180...180), Gen.double(in: 0..<360),
            Gen.double(in: 15...50_000), Gen.double(in: 0...1)
        ) { lat, lon, bearing, radius, fraction in
            let centre = Coordinate(latitude: lat, longitude: lon)
            let point = geodesic.destination(from: centre, bearing: bearing, distance: radius * fraction)
            let disc = GeodesicDisc(centre: centre, radius: radius)
            #expect(disc.mayContain(point), "\(point) at \(radius * fraction) m from \(centre), radius \(radius)")
        }
    }

    /// The worst corner of the plane's domain, exactly on the radius, on every bearing.
    @Test func holdsAtTheEdgeOfItsDomain() {
        for lat in [GeodesicDisc.maximumLatitude, -GeodesicDisc.maximumLatitude, 0, 45] {
            for lon in [179.99, -179.99, 0] {
                let centre = Coordinate(latitude: lat, longitude: lon)
                let disc = GeodesicDisc(centre: centre, radius: GeodesicDisc.maximumRadius)
                for bearing in stride(from: 0.0, to: 360, by: 5) {
                    let point = geodesic.destination(from: centre, bearing: bearing, distance: GeodesicDisc.maximumRadius)
                    #expect(disc.mayContain(point), "bearing \(bearing) from \(centre)")
                }
            }
        }
    }

    /// It is worth having: within its domain it rejects what lies clearly outside.
    @Test func rejectsWhatIsClearlyOutside() async {
        await propertyCheck(
            count: 500,
            input: Gen.double(in: -80...80), Gen.double(in: -180...180), Gen.double(in: 0..<360),
            Gen.double(in: 15...20_000)
        ) { lat, lon, bearing, radius in
            let centre = Coordinate(latitude: lat, longitude: lon)
            let point = geodesic.destination(from: centre, bearing: bearing, distance: radius * 1.1 + 2)
            #expect(!GeodesicDisc(centre: centre, radius: radius).mayContain(point))
        }
    }

    /// The bounds hold the exact distance of every point the disc holds, on both sides:
    /// the assembler answers "inside" and orders groups from them without Karney's inverse.
    /// Small discs too (15 m – 1 km, the groups queries' usual radius), whose bounds are as
    /// narrow as their own error, at every latitude of the domain.
    @Test(arguments: [15.0...20_000, 15.0...1_000])
    func boundsHoldTheExactDistance(radii: ClosedRange<Double>) async {
        await propertyCheck(
            count: 2_000,
            input: Gen.double(in: -80...80), Gen.double(in: -180...180), Gen.double(in: 0..<360),
            Gen.double(in: radii), Gen.double(in: 0...1.2)
        ) { lat, lon, bearing, radius, fraction in
            let centre = Coordinate(latitude: lat, longitude: lon)
            let point = geodesic.destination(from: centre, bearing: bearing, distance: radius * fraction)
            let exact = geodesic.distance(from: centre, to: point)
            if let bounds = GeodesicDisc(centre: centre, radius: radius).distanceBounds(to: point) {
                #expect(bounds.contains(exact), "\(exact) m not in \(bounds)")
            }
        }
        // The domain's corners, at the disc's widest reach.
        for lat in [GeodesicDisc.maximumLatitude, -GeodesicDisc.maximumLatitude] {
            let centre = Coordinate(latitude: lat, longitude: 179.99)
            let disc = GeodesicDisc(centre: centre, radius: GeodesicDisc.maximumRadius)
            for bearing in stride(from: 0.0, to: 360, by: 5) {
                for distance in [GeodesicDisc.maximumRadius, GeodesicDisc.maximumRadius * 1.05] {
                    let point = geodesic.destination(from: centre, bearing: bearing, distance: distance)
                    if let bounds = disc.distanceBounds(to: point) {
                        #expect(bounds.contains(geodesic.distance(from: centre, to: point)), "bearing \(bearing)")
                    }
                }
            }
        }
    }

    /// Narrow enough to order by: at 300 m around Bologna the bounds are a few centimetres
    /// wide, so that an answer measures exactly only the groups it answers (with the fixed 5 %
    /// and 1 m of before they were 32 m wide, and a fifth of the places in range were measured).
    @Test func boundsAreNarrowForASmallDisc() {
        let centre = Coordinate(latitude: 44.4938, longitude: 11.3430)
        let disc = GeodesicDisc(centre: centre, radius: 300)
        for bearing in stride(from: 0.0, to: 360, by: 15) {
            let point = geodesic.destination(from: centre, bearing: bearing, distance: 295)
            let bounds = disc.distanceBounds(to: point)
            #expect(bounds.map { $0.upperBound - $0.lowerBound < 0.1 } == true, "bearing \(bearing): \(String(describing: bounds))")
        }
    }

    /// A box's bound is never above the exact distance of a point in it, and "beyond the
    /// radius" (infinity) only when the point is: the groups read model skips whole cells of
    /// its grid with it.
    @Test func aBoxBoundIsBelowEveryPointInIt() async {
        await propertyCheck(
            count: 3_000,
            input: Gen.double(in: -80...80), Gen.double(in: -170...170), Gen.double(in: 15...20_000),
            Gen.double(in: -0.3...0.3), Gen.double(in: -0.3...0.3), Gen.double(in: 0...0.05), Gen.double(in: 0...1)
        ) { lat, lon, radius, south, west, size, fraction in
            let centre = Coordinate(latitude: lat, longitude: lon)
            let disc = GeodesicDisc(centre: centre, radius: radius)
            let latitudes = (lat + south)...(lat + south + size), longitudes = (lon + west)...(lon + west + size * 1.4)
            let bound = disc.distanceLowerBound(toLatitudes: latitudes, longitudes: longitudes)
            // The box's corners and a point inside it, the clamped nearest point among them.
            let inside = Coordinate(latitude: latitudes.lowerBound + size * fraction, longitude: longitudes.upperBound - size * 1.4 * fraction)
            let nearest = Coordinate(latitude: min(max(lat, latitudes.lowerBound), latitudes.upperBound),
                                     longitude: min(max(lon, longitudes.lowerBound), longitudes.upperBound))
            for point in [inside, nearest, Coordinate(latitude: latitudes.lowerBound, longitude: longitudes.lowerBound)] {
                let exact = geodesic.distance(from: centre, to: point)
                if bound.isFinite {
                    #expect(exact >= bound, "\(point): \(exact) m below the box's bound \(bound)")
                } else {
                    #expect(exact > radius, "\(point): \(exact) m within \(radius) but the box was ruled out")
                }
            }
        }
    }

    /// Outside a box that holds the centre, no point is nearer than the bound (or within the
    /// radius when it is infinity): the read model stops walking rings of cells with it.
    @Test func nothingOutsideABoxIsNearerThanItsBound() async {
        await propertyCheck(
            count: 3_000,
            input: Gen.double(in: -80...80), Gen.double(in: -170...170), Gen.double(in: 15...20_000),
            Gen.double(in: 0...0.05), Gen.double(in: 0...0.05), Gen.double(in: 0..<360), Gen.double(in: 0...30_000)
        ) { lat, lon, radius, south, north, bearing, distance in
            let centre = Coordinate(latitude: lat, longitude: lon)
            let disc = GeodesicDisc(centre: centre, radius: radius)
            let latitudes = (lat - south)...(lat + north), longitudes = (lon - north * 1.4)...(lon + south * 1.4)
            let bound = disc.distanceLowerBound(outsideLatitudes: latitudes, longitudes: longitudes)
            let point = geodesic.destination(from: centre, bearing: bearing, distance: distance)
            guard !(latitudes.contains(point.latitude) && longitudes.contains(point.longitude)) else { return }
            let exact = geodesic.distance(from: centre, to: point)
            if bound.isFinite {
                #expect(exact >= bound, "\(point): \(exact) m below the bound \(bound) outside the box")
            } else {
                #expect(exact > radius, "\(point): \(exact) m within \(radius) but everything outside was ruled out")
            }
        }
    }
}
