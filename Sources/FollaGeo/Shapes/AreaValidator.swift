import FollaCore

/// Checks an area drawn by a person before it is stored: simple (no self-intersection),
/// a real surface, not absurdly large; and draws circles as geodesic polygons.
public enum AreaShapes {
    /// nil when the ring is a valid simple polygon, else the reason in plain words.
    public static func problem(with ring: [Coordinate], maxArea: Double = 100_000_000) -> String? {
        guard let plane = try? LocalProjection(centre: ring[0]) else { return "cannot project the ring" }
        var planar: [PlanarPoint] = []
        for c in ring {
            guard let p = try? plane.forward(c) else { return "cannot project \(c)" }
            planar.append(p)
        }
        let geos = GeometryContext()
        guard let polygon = try? geos.polygon(planar) else { return "not a polygon" }
        guard polygon.isValid else {
            let reason = polygon.validityReason
            return reason.hasPrefix("Self-intersection") || reason.hasPrefix("Ring Self-intersection")
                ? "the polygon intersects itself (\(reason))" : "the polygon is invalid (\(reason))"
        }
        guard polygon.area > 1 else { return "the polygon has no area" }
        guard polygon.area <= maxArea else { return "the area is larger than \(Int(maxArea / 1_000_000)) km²" }
        return nil
    }

    /// For each point, whether the area inside `ring` covers it (boundary included), in a
    /// local metric plane centred on the ring (venues are small: the plane is exact enough).
    public static func covers(_ ring: [Coordinate], _ points: [Coordinate]) throws(GeoError) -> [Bool] {
        guard let first = ring.first, !points.isEmpty else { return points.map { _ in false } }
        let plane = try LocalProjection(centre: first)
        let geos = GeometryContext()
        var planar: [PlanarPoint] = []
        for c in ring { planar.append(try plane.forward(c)) }
        let polygon = try geos.polygon(planar)
        var out: [Bool] = []
        for p in points { out.append(polygon.covers(try geos.point(try plane.forward(p)))) }
        return out
    }

    /// A closed ring approximating the geodesic circle (counter-clockwise, `segments` sides).
    public static func circle(centre: Coordinate, radius: Double, segments: Int = 64) -> [Coordinate] {
        var ring = (0..<segments).map { i in
            Geodesic.wgs84.destination(from: centre, bearing: 360 - Double(i) * 360 / Double(segments), distance: radius)
        }
        ring.append(ring[0])
        return ring
    }
}
