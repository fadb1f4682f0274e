/// The outline of a crowd on the ground: hull polygon, area and centroid, in degrees
/// and square metres.
public struct Footprint: Sendable, Equatable {
    /// Closed exterior ring (first point repeated last), counter-clockwise or as GEOS gives it.
    public var ring: [Coordinate]
    /// Area in square metres, measured in a local azimuthal equidistant plane.
    public var area: Double
    public var centroid: Coordinate
}

/// Builds footprints of point sets: project to a local metric plane (PROJ), hull and
/// measure there (GEOS), then bring the ring back to WGS84.
///
/// Owns a GEOS context; one builder per owner (see `GeometryContext`).
public final class FootprintBuilder {
    private let geos = GeometryContext()

    public init() {}

    /// - Parameters:
    ///   - concaveRatio: nil for the convex hull, else GEOS's concave hull ratio (0…1).
    ///   - minimumBuffer: metres of buffer around one or two points (or collinear ones),
    ///     whose hull has no area, so that every group still has a drawable polygon.
    public func footprint(
        of points: [Coordinate], concaveRatio: Double? = nil, minimumBuffer: Double = 5
    ) throws(GeoError) -> Footprint {
        guard !points.isEmpty else { throw .invalidGeometry("no points") }
        for p in points where !p.isValid { throw .invalidCoordinate(p) }
        let centre = Coordinate(
            latitude: points.map(\.latitude).reduce(0, +) / Double(points.count),
            longitude: points.map(\.longitude).reduce(0, +) / Double(points.count))
        return try footprint(of: points, in: LocalProjection(centre: centre), concaveRatio: concaveRatio, minimumBuffer: minimumBuffer)
    }

    /// The same, in a plane the caller already has: creating a PROJ transformation costs
    /// milliseconds, so a request that outlines many groups shares one plane (centred on the
    /// asker; within 50 km its scale error stays under 10 ppm).
    public func footprint(
        of points: [Coordinate], in plane: LocalProjection, concaveRatio: Double? = nil, minimumBuffer: Double = 5
    ) throws(GeoError) -> Footprint {
        guard !points.isEmpty else { throw .invalidGeometry("no points") }
        var planar: [PlanarPoint] = []
        for p in points { planar.append(try plane.forward(p)) }
        let cloud = try geos.multiPoint(planar)
        var hull: Geometry
        if let concaveRatio {
            hull = try cloud.concaveHull(ratio: concaveRatio)
        } else {
            hull = try cloud.convexHull()
        }
        if hull.typeName != "Polygon" || hull.area == 0 {
            hull = try cloud.convexHull().buffer(minimumBuffer)
        }
        var planarRing = try hull.exteriorRing()
        // RFC 7946 wants exterior rings counter-clockwise (positive shoelace area).
        if Self.signedArea(planarRing) < 0 { planarRing.reverse() }
        var ring: [Coordinate] = []
        for p in planarRing { ring.append(try plane.inverse(p)) }
        return Footprint(ring: ring, area: hull.area, centroid: try plane.inverse(try hull.centroid()))
    }

    static func signedArea(_ ring: [PlanarPoint]) -> Double {
        guard ring.count > 2 else { return 0 }
        var sum = 0.0
        for i in 0..<(ring.count - 1) { sum += ring[i].x * ring[i + 1].y - ring[i + 1].x * ring[i].y }
        return sum / 2
    }
}
