import CGEOS

/// A planar GEOS geometry, owned by Swift and destroyed with it.
/// Belongs to the `GeometryContext` that made it; see that type for the threading rule.
public final class Geometry {
    let context: GeometryContext
    let raw: OpaquePointer

    init(context: GeometryContext, raw: OpaquePointer) {
        self.context = context
        self.raw = raw
    }

    deinit { GEOSGeom_destroy_r(context.handle, raw) }

    private var h: OpaquePointer { context.handle }

    /// The GEOS type name: "Point", "Polygon", "MultiPoint", …
    public var typeName: String {
        guard let c = GEOSGeomType_r(h, raw) else { return "Unknown" }
        defer { GEOSFree_r(h, c) }
        return String(cString: c)
    }

    public var isValid: Bool { GEOSisValid_r(h, raw) == 1 }

    /// Why the geometry is invalid (e.g. "Self-intersection[…]"), or "Valid Geometry".
    public var validityReason: String {
        guard let c = GEOSisValidReason_r(h, raw) else { return context.lastError() }
        defer { GEOSFree_r(h, c) }
        return String(cString: c)
    }

    public var isEmpty: Bool { GEOSisEmpty_r(h, raw) == 1 }

    /// Area in the plane's units squared (m² in a local metric projection).
    public var area: Double {
        var a = 0.0
        GEOSArea_r(h, raw, &a)
        return a
    }

    /// Whether no point of `other` lies outside this geometry (boundary included).
    public func covers(_ other: Geometry) -> Bool { GEOSCovers_r(h, raw, other.raw) == 1 }

    public func convexHull() throws(GeoError) -> Geometry {
        try context.adopt(GEOSConvexHull_r(h, raw), "convex hull")
    }

    /// GEOS 3.11 concave hull. `ratio` 1 gives the convex hull, 0 the tightest one.
    public func concaveHull(ratio: Double, allowHoles: Bool = false) throws(GeoError) -> Geometry {
        try context.adopt(GEOSConcaveHull_r(h, raw, ratio, allowHoles ? 1 : 0), "concave hull")
    }

    public func buffer(_ distance: Double, quadrantSegments: Int32 = 8) throws(GeoError) -> Geometry {
        try context.adopt(GEOSBuffer_r(h, raw, distance, quadrantSegments), "buffer")
    }

    public func centroid() throws(GeoError) -> PlanarPoint {
        let c = try context.adopt(GEOSGetCentroid_r(h, raw), "centroid")
        var x = 0.0, y = 0.0
        guard GEOSGeomGetX_r(h, c.raw, &x) == 1, GEOSGeomGetY_r(h, c.raw, &y) == 1 else {
            throw .geos("centroid of an empty geometry")
        }
        return PlanarPoint(x: x, y: y)
    }

    public func distance(to other: Geometry) -> Double {
        var d = 0.0
        GEOSDistance_r(h, raw, other.raw, &d)
        return d
    }

    /// The exterior ring of a polygon (closed: last point equals the first).
    public func exteriorRing() throws(GeoError) -> [PlanarPoint] {
        guard typeName == "Polygon" else { throw .invalidGeometry("\(typeName) has no exterior ring") }
        guard let ring = GEOSGetExteriorRing_r(h, raw), let seq = GEOSGeom_getCoordSeq_r(h, ring) else {
            throw .geos("exterior ring: \(context.lastError())")
        }
        return context.points(of: seq)
    }

    public var wkt: String {
        guard let c = GEOSGeomToWKT_r(h, raw) else { return "" }
        defer { GEOSFree_r(h, c) }
        return String(cString: c)
    }
}
