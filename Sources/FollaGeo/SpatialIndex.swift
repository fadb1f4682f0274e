import CGEOS

/// A GEOS STRtree over planar points, answering "which points lie within r of p".
///
/// Bulk-built once (an STRtree is immutable after its first query), which fits the
/// read path: load the places of one request, index them, ask many neighbour queries.
/// Same threading rule as `GeometryContext`: one owner at a time.
public final class SpatialIndex {
    private let context: GeometryContext
    private let tree: OpaquePointer
    private let geometries: [Geometry]
    private let indexOf: [OpaquePointer: Int]
    public let points: [PlanarPoint]

    public init(context: GeometryContext, points: [PlanarPoint], nodeCapacity: Int = 10) throws(GeoError) {
        guard let tree = GEOSSTRtree_create_r(context.handle, max(2, nodeCapacity)) else {
            throw .geos("STRtree: \(context.lastError())")
        }
        var geometries: [Geometry] = []
        var indexOf: [OpaquePointer: Int] = [:]
        geometries.reserveCapacity(points.count)
        do {
            for (i, p) in points.enumerated() {
                let g = try context.point(p)
                geometries.append(g)
                indexOf[g.raw] = i
                // The item is the geometry itself, so GEOSSTRtree_nearest_r can use it.
                GEOSSTRtree_insert_r(context.handle, tree, g.raw, UnsafeMutableRawPointer(g.raw))
            }
        } catch {
            GEOSSTRtree_destroy_r(context.handle, tree)
            throw error
        }
        self.context = context
        self.tree = tree
        self.geometries = geometries
        self.indexOf = indexOf
        self.points = points
    }

    deinit { GEOSSTRtree_destroy_r(context.handle, tree) }

    /// Indices of the points whose distance to `centre` is at most `radius`, ascending.
    public func indices(within radius: Double, of centre: PlanarPoint) -> [Int] {
        guard !points.isEmpty,
              let box = GEOSGeom_createRectangle_r(
                  context.handle, centre.x - radius, centre.y - radius, centre.x + radius, centre.y + radius)
        else { return [] }
        defer { GEOSGeom_destroy_r(context.handle, box) }
        let hits = HitList()
        GEOSSTRtree_query_r(context.handle, tree, box, { item, userdata in
            guard let item, let userdata else { return }
            Unmanaged<HitList>.fromOpaque(userdata).takeUnretainedValue().items.append(OpaquePointer(item))
        }, Unmanaged.passUnretained(hits).toOpaque())
        return hits.items
            .compactMap { indexOf[$0] }
            .filter { points[$0].distance(to: centre) <= radius }
            .sorted()
    }

    /// Index of the point nearest to `p`, or nil when the index is empty.
    public func nearest(to p: PlanarPoint) -> Int? {
        guard !points.isEmpty, let probe = try? context.point(p),
              let found = GEOSSTRtree_nearest_r(context.handle, tree, probe.raw)
        else { return nil }
        return indexOf[OpaquePointer(UnsafeRawPointer(found))]
    }
}

private final class HitList {
    var items: [OpaquePointer] = []
}
