/// Groups points that are chained together by gaps of at most ε metres.
///
/// This is DBSCAN with `minpoints = 1` — every point is a core point — so the clusters are
/// the connected components of the "within ε" graph, the same partition PostGIS
/// `ST_ClusterDBSCAN(geom, eps => ε, minpoints => 1)` gives. The STRtree keeps it
/// O(n log n) for the sparse crowds we see instead of comparing every pair.
public enum Clustering {
    /// Clusters as lists of point indices; each list ascending, lists ordered by first index.
    public static func partition(
        _ points: [PlanarPoint], epsilon: Double, context: GeometryContext
    ) throws(GeoError) -> [[Int]] {
        guard !points.isEmpty else { return [] }
        let index = try SpatialIndex(context: context, points: points)
        var sets = DisjointSets(count: points.count)
        for (i, p) in points.enumerated() {
            for j in index.indices(within: epsilon, of: p) where j > i {
                sets.union(i, j)
            }
        }
        var byRoot: [Int: [Int]] = [:]
        for i in points.indices { byRoot[sets.find(i), default: []].append(i) }
        return byRoot.values.sorted { $0[0] < $1[0] }
    }
}

/// Union–find with path halving and union by size.
struct DisjointSets {
    private var parent: [Int]
    private var size: [Int]

    init(count: Int) {
        parent = Array(0..<count)
        size = Array(repeating: 1, count: count)
    }

    mutating func find(_ x: Int) -> Int {
        var x = x
        while parent[x] != x {
            parent[x] = parent[parent[x]]
            x = parent[x]
        }
        return x
    }

    mutating func union(_ a: Int, _ b: Int) {
        var ra = find(a), rb = find(b)
        guard ra != rb else { return }
        if size[ra] < size[rb] { swap(&ra, &rb) }
        parent[rb] = ra
        size[ra] += size[rb]
    }
}
