import FollaGeo
import PropertyBased
import Testing

@Suite struct GeometryTests {
    let square = [
        PlanarPoint(x: 0, y: 0), PlanarPoint(x: 10, y: 0), PlanarPoint(x: 10, y: 10), PlanarPoint(x: 0, y: 10),
    ]

    @Test func convexHullOfKnownPoints() throws {
        let geos = GeometryContext()
        // The corners of a 10 m square plus interior points: the hull is the square.
        let cloud = try geos.multiPoint(square + [PlanarPoint(x: 5, y: 5), PlanarPoint(x: 2, y: 7)])
        let hull = try cloud.convexHull()
        #expect(hull.typeName == "Polygon")
        #expect(abs(hull.area - 100) < 1e-9)
        let ring = try hull.exteriorRing()
        #expect(ring.count == 5)
        #expect(Set(ring) == Set(square))
        let c = try hull.centroid()
        #expect(abs(c.x - 5) < 1e-9 && abs(c.y - 5) < 1e-9)
    }

    @Test func concaveHullFollowsANotch() throws {
        let geos = GeometryContext()
        // A U shape: dense points along three sides of a 100 m square, open at the top.
        var pts: [PlanarPoint] = []
        for i in stride(from: 0.0, through: 100, by: 5) {
            pts.append(PlanarPoint(x: i, y: 0))
            pts.append(PlanarPoint(x: 0, y: i))
            pts.append(PlanarPoint(x: 100, y: i))
            pts.append(PlanarPoint(x: i, y: 5))
            pts.append(PlanarPoint(x: 5, y: i))
            pts.append(PlanarPoint(x: 95, y: i))
        }
        let cloud = try geos.multiPoint(pts)
        let convex = try cloud.convexHull()
        let concave = try cloud.concaveHull(ratio: 0.05)
        #expect(abs(convex.area - 10_000) < 1e-6)
        #expect(concave.area < convex.area * 0.5)
        #expect(concave.isValid)
    }

    @Test func selfIntersectingPolygonIsInvalid() throws {
        let geos = GeometryContext()
        let bowtie = try geos.polygon([PlanarPoint(x: 0, y: 0), PlanarPoint(x: 10, y: 10), PlanarPoint(x: 10, y: 0), PlanarPoint(x: 0, y: 10)])
        #expect(!bowtie.isValid)
        #expect(bowtie.validityReason.contains("Self-intersection"))
        #expect(try geos.polygon(square).isValid)
    }

    @Test func polygonNeedsThreePoints() {
        let geos = GeometryContext()
        #expect(throws: GeoError.self) { try geos.polygon([PlanarPoint(x: 0, y: 0), PlanarPoint(x: 1, y: 1)]) }
    }

    @Test func footprintAreaIsInSquareMetres() throws {
        // A 100 m × 100 m square laid out geodesically around Piazza Maggiore.
        let centre = Coordinate(latitude: 44.4938, longitude: 11.3430)
        let g = Geodesic.wgs84
        let south = g.destination(from: centre, bearing: 180, distance: 50)
        let sw = g.destination(from: south, bearing: 270, distance: 50)
        let se = g.destination(from: south, bearing: 90, distance: 50)
        let nw = g.destination(from: sw, bearing: 0, distance: 100)
        let ne = g.destination(from: se, bearing: 0, distance: 100)
        let fp = try FootprintBuilder().footprint(of: [sw, se, ne, nw, centre])
        #expect(abs(fp.area - 10_000) < 10)  // < 0.1 %: aeqd is near-metric at this scale
        #expect(g.distance(from: fp.centroid, to: centre) < 0.5)
        #expect(fp.ring.first == fp.ring.last)
    }

    @Test func footprintOfOnePointIsASmallDisc() throws {
        let p = Coordinate(latitude: 44.4938, longitude: 11.3430)
        let fp = try FootprintBuilder().footprint(of: [p], minimumBuffer: 5)
        #expect(abs(fp.area - Double.pi * 25) < 2)  // a 32-gon approximates the disc
        for v in fp.ring { #expect(abs(Geodesic.wgs84.distance(from: p, to: v) - 5) < 0.01) }
    }
}
