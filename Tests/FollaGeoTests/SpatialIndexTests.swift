import FollaGeo
import PropertyBased
import Testing

@Suite struct SpatialIndexTests {
    @Test func radiusQueryEqualsBruteForce() async {
        await propertyCheck(
            count: 60,
            input: Gen.double(in: -500...500).array(of: 0...120), Gen.double(in: 1...200)
        ) { coords, radius in
            let points = stride(from: 0, to: coords.count - 1, by: 2).map { PlanarPoint(x: coords[$0], y: coords[$0 + 1]) }
            let geos = GeometryContext()
            let index = try #require(try? SpatialIndex(context: geos, points: points))
            for probe in points.prefix(10) {
                let expected = points.indices.filter { points[$0].distance(to: probe) <= radius }
                #expect(index.indices(within: radius, of: probe) == expected)
            }
        }
    }

    @Test func nearestIsTheClosest() throws {
        let points = [PlanarPoint(x: 0, y: 0), PlanarPoint(x: 10, y: 0), PlanarPoint(x: 3, y: 4)]
        let index = try SpatialIndex(context: GeometryContext(), points: points)
        #expect(index.nearest(to: PlanarPoint(x: 9, y: 1)) == 1)
        #expect(index.nearest(to: PlanarPoint(x: 2, y: 3)) == 2)
        #expect(try SpatialIndex(context: GeometryContext(), points: []).nearest(to: PlanarPoint(x: 0, y: 0)) == nil)
    }

    /// Partition equals the connected components found by brute force.
    @Test func clusteringEqualsBruteForceComponents() async {
        await propertyCheck(
            count: 60,
            input: Gen.double(in: 0...300).array(of: 0...80), Gen.double(in: 1...60)
        ) { coords, eps in
            let points = stride(from: 0, to: coords.count - 1, by: 2).map { PlanarPoint(x: coords[$0], y: coords[$0 + 1]) }
            let clusters = try #require(try? Clustering.partition(points, epsilon: eps, context: GeometryContext()))
            #expect(clusters == bruteForceComponents(points, eps))
        }
    }

    private func bruteForceComponents(_ points: [PlanarPoint], _ eps: Double) -> [[Int]] {
        var label = Array(repeating: -1, count: points.count)
        var out: [[Int]] = []
        for s in points.indices where label[s] < 0 {
            var stack = [s], members: [Int] = []
            label[s] = out.count
            while let i = stack.popLast() {
                members.append(i)
                for j in points.indices where label[j] < 0 && points[i].distance(to: points[j]) <= eps {
                    label[j] = out.count
                    stack.append(j)
                }
            }
            out.append(members.sorted())
        }
        return out
    }
}
