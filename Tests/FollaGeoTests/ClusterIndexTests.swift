import FollaCore
import FollaGeo
import Testing

/// The zoom-level clustering against an independent, brute-force statement of the same
/// algorithm (supercluster's greedy pass: every point not yet taken, in input order, takes
/// every untaken point of the zoom above within r and sits at their weighted centroid).
@Suite struct ClusterIndexTests {
    /// Random crowds around a few centres (dense spots and scattered people), keys ascending.
    static func crowd(seed: UInt64, count: Int) -> [ClusterIndex.Point] {
        var rng = SeededRandom(seed: seed)
        let centres = (0..<5).map { _ in (Double.random(in: 0.52...0.54, using: &rng), Double.random(in: 0.36...0.38, using: &rng)) }
        return (0..<count).map { i in
            let c = centres[i % centres.count]
            let spread = i % 3 == 0 ? 0.01 : 0.0005
            return ClusterIndex.Point(x: c.0 + Double.random(in: -spread...spread, using: &rng),
                                      y: c.1 + Double.random(in: -spread...spread, using: &rng),
                                      weight: Int.random(in: 1...40, using: &rng), key: Int64(i + 1))
        }
    }

    /// The brute-force reference: O(n²) per zoom, no grid.
    struct Reference {
        struct Node: Equatable { var x, y: Double; var weight, points: Int; var seed: Int64 }
        var levels: [[Node]] = []

        init(_ points: [ClusterIndex.Point], radius: Double = 40, extent: Double = 512, maxZoom: Int = 16) {
            var level = points.map { Node(x: $0.x, y: $0.y, weight: $0.weight, points: 1, seed: $0.key) }
            levels = Array(repeating: [], count: maxZoom + 2)
            levels[maxZoom + 1] = level
            for zoom in stride(from: maxZoom, through: 0, by: -1) {
                let r = radius / (extent * Double(1 << zoom))
                var taken = [Bool](repeating: false, count: level.count)
                var next: [Node] = []
                for i in level.indices where !taken[i] {
                    taken[i] = true
                    var members = [i]
                    for j in level.indices where !taken[j] {
                        let dx = level[j].x - level[i].x, dy = level[j].y - level[i].y
                        if dx * dx + dy * dy <= r * r { members.append(j) }
                    }
                    if members.count == 1 { next.append(level[i]); continue }
                    var wx = 0.0, wy = 0.0, w = 0.0, weight = 0, count = 0
                    for j in members {
                        taken[j] = true
                        let q = level[j], qw = Double(max(q.weight, 1))
                        wx += q.x * qw; wy += q.y * qw; w += qw
                        weight += q.weight; count += q.points
                    }
                    next.append(Node(x: wx / w, y: wy / w, weight: weight, points: count, seed: level[i].seed))
                }
                levels[zoom] = next
                level = next
            }
        }
    }

    @Test(arguments: [1, 2, 3])
    func agreesWithTheBruteForceAtEveryZoom(seed: UInt64) {
        let points = Self.crowd(seed: seed, count: 600)
        let index = ClusterIndex(points: points)
        let reference = Reference(points)
        for zoom in 0...17 {
            let got = index.nodes(zoom: zoom, minX: 0, minY: 0, maxX: 1, maxY: 1)
            let want = reference.levels[zoom]
            #expect(got.count == want.count, "zoom \(zoom)")
            for (g, w) in zip(got, want) {
                #expect(g.seed == w.seed && g.weight == w.weight && g.points == w.points, "zoom \(zoom)")
                #expect(abs(g.x - w.x) < 1e-12 && abs(g.y - w.y) < 1e-12, "zoom \(zoom)")
            }
        }
    }

    /// Everyone is somewhere at every zoom, and a cluster's children hold exactly its people.
    @Test func peopleAreConservedAndChildrenAddUp() {
        let points = Self.crowd(seed: 7, count: 800)
        let total = points.reduce(0) { $0 + $1.weight }
        let index = ClusterIndex(points: points)
        for zoom in 0...20 {
            let nodes = index.nodes(zoom: zoom, minX: 0, minY: 0, maxX: 1, maxY: 1)
            #expect(nodes.reduce(0) { $0 + $1.weight } == total, "zoom \(zoom)")
            #expect(nodes.reduce(0) { $0 + $1.points } == points.count, "zoom \(zoom)")
            for n in nodes where n.isCluster && zoom <= 16 {
                let id = ClusterIndex.id(seed: n.seed, zoom: zoom)
                let (kids, kidZoom) = try! #require(index.children(of: id))
                #expect(kidZoom == zoom + 1)
                #expect(kids.reduce(0) { $0 + $1.weight } == n.weight)
                #expect(kids.reduce(0) { $0 + $1.points } == n.points)
                // The expansion zoom is the first where it shows as more than one node.
                let expansion = try! #require(index.expansionZoom(of: id))
                #expect(expansion > zoom)
                var z = zoom, current = [n]
                while current.count == 1, current[0].isCluster, z <= 16 {
                    current = index.children(of: ClusterIndex.id(seed: current[0].seed, zoom: z))!.nodes
                    z += 1
                }
                #expect(expansion == z, "cluster \(id)")
            }
        }
        #expect(index.children(of: ClusterIndex.id(seed: 999_999, zoom: 3)) == nil)
    }

    /// A box across 180° holds both sides; the same points give the same ids.
    @Test func antimeridianAndStableIds() {
        let east = ClusterIndex.mercator(Coordinate(latitude: 10, longitude: 179.9))
        let west = ClusterIndex.mercator(Coordinate(latitude: 10, longitude: -179.9))
        let far = ClusterIndex.mercator(Coordinate(latitude: 10, longitude: 0))
        let points = [ClusterIndex.Point(x: east.x, y: east.y, weight: 3, key: 1),
                      ClusterIndex.Point(x: west.x, y: west.y, weight: 4, key: 2),
                      ClusterIndex.Point(x: far.x, y: far.y, weight: 5, key: 3)]
        let index = ClusterIndex(points: points)
        let box = (ClusterIndex.mercator(Coordinate(latitude: 11, longitude: 170)), ClusterIndex.mercator(Coordinate(latitude: 9, longitude: -170)))
        let inside = index.nodes(zoom: 10, minX: box.0.x, minY: box.0.y, maxX: box.1.x, maxY: box.1.y)
        #expect(Set(inside.map(\.seed)) == [1, 2])
        #expect(ClusterIndex(points: points).nodes(zoom: 0, minX: 0, minY: 0, maxX: 1, maxY: 1)
            == index.nodes(zoom: 0, minX: 0, minY: 0, maxX: 1, maxY: 1))
        let c = ClusterIndex.coordinate(x: east.x, y: east.y)
        #expect(abs(c.latitude - 10) < 1e-9 && abs(c.longitude - 179.9) < 1e-9)
    }
}
