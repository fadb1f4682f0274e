import Foundation

/// Zoom-level clustering of weighted points, the way supercluster (Mapbox) does it: for
/// each zoom from `maxZoom` down to 0, the points of the zoom above are merged greedily
/// with their neighbours within `radius` screen pixels (on `extent`-pixel tiles) into
/// clusters at their weighted centroid. Each cluster knows its children (one zoom deeper)
/// and so the zoom at which it splits.
///
/// Written here because no Swift library does it (supercluster is JavaScript; its KD-tree
/// KDBush too). The neighbour search is a uniform grid of cell size `r` per zoom, kept as
/// one sorted array (see `cluster`), which is all a build needs; a viewport query scans one
/// zoom's array (tens of thousands of comparisons, well under a millisecond).
///
/// Processing follows the order of the input (callers sort it by a stable key), so two
/// instances built from the same points give the same clusters and the same ids.
public struct ClusterIndex: Sendable {
    /// One input point, in Web Mercator units ([0, 1] × [0, 1], y down).
    public struct Point: Sendable, Equatable {
        public var x: Double
        public var y: Double
        /// What the clusters count and weigh centroids by (people).
        public var weight: Int
        /// A stable positive key below 2^47, unique among the points (a place id, a cell key).
        public var key: Int64

        public init(x: Double, y: Double, weight: Int, key: Int64) {
            self.x = x
            self.y = y
            self.weight = weight
            self.key = key
        }
    }

    /// A point or a cluster at one zoom.
    public struct Node: Sendable, Equatable {
        public var x: Double
        public var y: Double
        /// Sum of the weights of the points inside.
        public var weight: Int
        /// How many input points are inside (1 for a point).
        public var points: Int
        /// The key of the input point that started it: with `zoom`, the cluster's id.
        public var seed: Int64
        /// The input point's index, for a node that is a single point.
        public var point: Int?
        public var isCluster: Bool { point == nil }
    }

    public let radius: Double
    public let extent: Double
    public let maxZoom: Int
    /// `levels[z]` holds the nodes at zoom z, for z in 0...maxZoom + 1 (the last: the points).
    private var levels: [[Node]] = []
    /// `children[z][i]`: indices in `levels[z + 1]` of what node i of zoom z merged.
    private var children: [Members] = []
    /// Per zoom, cluster seed → index (clusters only).
    private var clusterBySeed: [[Int64: Int32]] = []

    /// - Parameters:
    ///   - points: the input, in the order that decides who seeds a cluster.
    ///   - radius: cluster radius in pixels (supercluster's default 40).
    ///   - extent: tile size in pixels the radius is measured on (supercluster's default 512).
    ///   - maxZoom: the deepest zoom that clusters; deeper, every point stands alone.
    public init(points: [Point], radius: Double = 40, extent: Double = 512, maxZoom: Int = 16) {
        self.radius = radius
        self.extent = extent
        self.maxZoom = maxZoom
        var level = points.enumerated().map { i, p in
            Node(x: p.x, y: p.y, weight: p.weight, points: 1, seed: p.key, point: i)
        }
        levels = Array(repeating: [], count: maxZoom + 2)
        children = Array(repeating: Members(), count: maxZoom + 2)
        clusterBySeed = Array(repeating: [:], count: maxZoom + 2)
        levels[maxZoom + 1] = level
        for zoom in stride(from: maxZoom, through: 0, by: -1) {
            let (next, merged) = Self.cluster(level, zoom: zoom, r: radius / (extent * Double(1 << zoom)))
            levels[zoom] = next
            children[zoom] = merged
            var seeds: [Int64: Int32] = [:]
            for (i, n) in next.enumerated() where n.isCluster { seeds[n.seed] = Int32(i) }
            clusterBySeed[zoom] = seeds
            level = next
        }
    }

    /// What one zoom's pass merged: node i of the zoom took `items[offsets[i]..<offsets[i + 1]]`
    /// of the zoom above (flat, so a level of 100 000 nodes is two arrays, not 100 000).
    struct Members: Sendable {
        var offsets: [Int32] = [0]
        var items: [Int32] = []
        subscript(i: Int) -> ArraySlice<Int32> { items[Int(offsets[i])..<Int(offsets[i + 1])] }
    }

    /// One zoom's greedy pass: each node not yet taken takes its untaken neighbours within r.
    ///
    /// The grid is flat: nodes sorted by cell key (column-major, so a cell and the ones above
    /// and below it are one run of keys), each neighbourhood three binary searches.
    private static func cluster(_ nodes: [Node], zoom: Int, r: Double) -> ([Node], Members) {
        let n = nodes.count
        func key(_ cx: Int, _ cy: Int) -> Int64 { Int64(cx) << 32 | Int64(UInt32(truncatingIfNeeded: cy)) }
        var cells = [(cx: Int, cy: Int)](repeating: (0, 0), count: n)
        var keyed = [(key: Int64, index: Int32)]()
        keyed.reserveCapacity(n)
        for i in 0..<n {
            let c = (Int((nodes[i].x / r).rounded(.down)), Int((nodes[i].y / r).rounded(.down)))
            cells[i] = c
            keyed.append((key(c.0, c.1), Int32(i)))
        }
        keyed.sort { ($0.key, $0.index) < ($1.key, $1.index) }
        func lowerBound(_ k: Int64) -> Int {
            var lo = 0, hi = keyed.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if keyed[mid].key < k { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
        var taken = [Bool](repeating: false, count: n)
        var out: [Node] = []
        var merged = Members()
        let r2 = r * r
        var members: [Int32] = []
        for i in 0..<n where !taken[i] {
            taken[i] = true
            let p = nodes[i]
            members.removeAll(keepingCapacity: true)
            members.append(Int32(i))
            let c = cells[i]
            for cx in (c.cx - 1)...(c.cx + 1) {
                let last = key(cx, c.cy + 1)
                var k = lowerBound(key(cx, c.cy - 1))
                while k < keyed.count && keyed[k].key <= last {
                    let j = Int(keyed[k].index)
                    k += 1
                    if taken[j] { continue }
                    let q = nodes[j]
                    let dx = q.x - p.x, dy = q.y - p.y
                    if dx * dx + dy * dy <= r2 { members.append(Int32(j)) }
                }
            }
            // Members in input order, as a pass over the nodes in order would take them.
            if members.count > 2 { members[1...].sort() }
            if members.count == 1 {
                out.append(p)
            } else {
                var wx = 0.0, wy = 0.0, weight = 0, count = 0, w = 0.0
                for j in members {
                    taken[Int(j)] = true
                    let q = nodes[Int(j)]
                    let qw = Double(max(q.weight, 1))
                    wx += q.x * qw
                    wy += q.y * qw
                    w += qw
                    weight += q.weight
                    count += q.points
                }
                out.append(Node(x: wx / w, y: wy / w, weight: weight, points: count, seed: p.seed, point: nil))
            }
            merged.items.append(contentsOf: members)
            merged.offsets.append(Int32(merged.items.count))
        }
        return (out, merged)
    }

    /// The nodes at `zoom` (clamped to 0...maxZoom + 1) inside the Mercator box, which may
    /// wrap across the antimeridian (minX > maxX).
    public func nodes(zoom: Int, minX: Double, minY: Double, maxX: Double, maxY: Double) -> [Node] {
        let z = min(max(zoom, 0), maxZoom + 1)
        return levels[z].filter { n in
            guard n.y >= minY && n.y <= maxY else { return false }
            return minX <= maxX ? (n.x >= minX && n.x <= maxX) : (n.x >= minX || n.x <= maxX)
        }
    }

    /// A cluster's id: its seed and its zoom, so that ids survive a rebuild from the same points.
    public static func id(seed: Int64, zoom: Int) -> Int64 { seed * 32 + Int64(zoom) }

    /// The cluster with this id, as (zoom, index), if it exists.
    private func locate(_ id: Int64) -> (zoom: Int, index: Int)? {
        guard id >= 0 else { return nil }
        let zoom = Int(id % 32), seed = id / 32
        guard zoom <= maxZoom, let i = clusterBySeed[zoom][seed] else { return nil }
        return (zoom, Int(i))
    }

    /// The cluster itself and the zoom it lives at.
    public func cluster(id: Int64) -> (node: Node, zoom: Int)? {
        locate(id).map { (levels[$0.zoom][$0.index], $0.zoom) }
    }

    /// What a cluster splits into one zoom deeper (supercluster's `getChildren`), with their zoom.
    public func children(of id: Int64) -> (nodes: [Node], zoom: Int)? {
        guard let (zoom, i) = locate(id) else { return nil }
        return (children[zoom][i].map { levels[zoom + 1][Int($0)] }, zoom + 1)
    }

    /// The first zoom at which the cluster shows as more than one node (supercluster's
    /// `getClusterExpansionZoom`): where a click on it should zoom to.
    public func expansionZoom(of id: Int64) -> Int? {
        guard var (zoom, i) = locate(id) else { return nil }
        while zoom <= maxZoom {
            let kids = children[zoom][i]
            if kids.count != 1 { return zoom + 1 }
            i = Int(kids[kids.startIndex])
            zoom += 1
        }
        return maxZoom + 1
    }

    /// Web Mercator of a position: x from 0 (180° W) to 1, y from 0 (north) to 1.
    public static func mercator(_ c: Coordinate) -> (x: Double, y: Double) {
        let s = sin(c.latitude * .pi / 180)
        let y = 0.5 - 0.25 * log((1 + s) / (1 - s)) / .pi
        return ((c.longitude + 180) / 360, min(max(y, 0), 1))
    }

    /// The inverse of `mercator`.
    public static func coordinate(x: Double, y: Double) -> Coordinate {
        let lat = atan(sinh(.pi * (1 - 2 * y))) * 180 / .pi
        return Coordinate(latitude: lat, longitude: x * 360 - 180)
    }
}
