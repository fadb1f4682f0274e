import FollaCore
import FollaGeo
import FollaServices
import Foundation
import Testing

/// The assembler measures distances only where its disc's bounds cannot decide; its answers
/// must be exactly those of measuring everything (which this reference does, independently).
@Suite struct GroupAssemblerTests {
    let policy = PrivacyPolicy(k: 3, noiseKey: 7)
    /// The time of the answers.
    let publishedAt = Date(timeIntervalSince1970: 1_800_000_040)

    /// Random places around a centre: dense enough that fine-grid positions coincide (ties
    /// broken by id), some small groups that become cells, some on the radius's edge.
    func places(around centre: Coordinate, count: Int, spread: Double, seed: UInt64) -> [LivePlace] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { i in
            let at = Geodesic.wgs84.destination(from: centre, bearing: random.unit() * 360, distance: random.unit() * spread)
            let people = 1 + Int(random.unit() * 8)
            return LivePlace(id: Int64(i + 1), anchor: at,
                             stats: PlaceStats(people: people, reporters: 0, ageSum: 0, male: 0, female: 0),
                             lastActivity: Date(timeIntervalSince1970: 1_800_000_000), messageCount: 0)
        }
    }

    /// Every published place within the radius, measured (as answers measure, `GeodesicFan`;
    /// GeodesicFanTests holds it to Karney's), in the order asked, first `limit`.
    func reference(_ query: GroupQuery, _ places: [LivePlace]) -> [(id: Int64?, distance: Double, bearing: Double, people: Int)] {
        let fan = GeodesicFan(centre: query.centre)
        let rows = policy.publish(places, at: publishedAt).compactMap { p -> (id: Int64?, distance: Double, bearing: Double, people: Int, at: Coordinate)? in
            let line = fan.ray(to: p.position)
            guard line.distance <= query.radius, query.admits(people: p.people) else { return nil }
            return (p.id, line.distance, line.initialBearing, p.people, p.position)
        }
        // Ties by position, south to north, then west to east.
        let sorted = rows.sorted { a, b in
            let ai = a.id ?? .max, bi = b.id ?? .max
            let ap = (a.at.latitude, a.at.longitude), bp = (b.at.latitude, b.at.longitude)
            switch query.sort {
            case .distance: return (a.distance, ai, ap.0, ap.1) < (b.distance, bi, bp.0, bp.1)
            case .people: return (b.people, a.distance, ai, ap.0, ap.1) < (a.people, b.distance, bi, bp.0, bp.1)
            }
        }
        return sorted.prefix(query.limit).map { ($0.id, $0.distance, $0.bearing, $0.people) }
    }

    @Test(arguments: [GroupQuery.Sort.distance, .people])
    func answersAsIfEveryDistanceWereMeasured(sort: GroupQuery.Sort) throws {
        for seed in UInt64(1)...20 {
            let centre = Coordinate(latitude: 44.4938 + Double(seed) * 0.001, longitude: 11.343)
            var query = GroupQuery(centre: centre)
            query.radius = 300
            query.limit = [1, 7, 40, 1_000][Int(seed % 4)]
            query.sort = sort
            let all = places(around: centre, count: 400, spread: 360, seed: seed)
            let got = try GroupAssembler(query: query, privacy: policy).assemble(all, at: publishedAt)
            let want = reference(query, all)
            #expect(got.count == want.count, "seed \(seed)")
            for (g, w) in zip(got, want) {
                #expect(g.id == w.id && g.people == w.people, "seed \(seed): \(String(describing: g.id)) vs \(String(describing: w.id))")
                #expect(g.distance == w.distance && g.bearing == w.bearing, "seed \(seed): id \(String(describing: g.id))")
            }
        }
    }

    /// Near-ties the disc's plane cannot order: places all but equally far in every direction
    /// (k = 1 keeps exact anchors), a tenth of a millimetre apart in distance, while the plane
    /// errs by millimetres depending on the bearing. Only measuring the right candidates
    /// orders them right.
    @Test(arguments: [1, 5, 30])
    func ordersNearTiesByTheirMeasuredDistance(limit: Int) throws {
        let original = PrivacyPolicy(k: 1)
        let centre = Coordinate(latitude: 60, longitude: 11.343)
        var ring: [LivePlace] = []
        for i in 0..<120 {
            let bearing = Double(i * 97 % 120) * 3
            let distance = 250 + Double(i) * 1e-4
            let anchor = Geodesic.wgs84.destination(from: centre, bearing: bearing, distance: distance)
            let stats = PlaceStats(people: 1, reporters: 0, ageSum: 0, male: 0, female: 0)
            ring.append(LivePlace(id: Int64(i + 1), anchor: anchor, stats: stats,
                                  lastActivity: Date(timeIntervalSince1970: 1_800_000_000), messageCount: 0))
        }
        var query = GroupQuery(centre: centre)
        query.radius = 300
        query.limit = limit
        let got = try GroupAssembler(query: query, privacy: original).assemble(ring, at: publishedAt)
        let ids: [Int64?] = got.map { $0.id }
        #expect(ids == (1...Int64(limit)).map { Optional($0) })
    }

    /// Clusters (several parts, no line measured by the filter; coarsened ones at their cell
    /// centre, possibly beyond the disc) and hulls: the first L of an answer are the first L
    /// of the whole answer, hulls included.
    @Test func clusteredAnswersArePrefixesOfTheWholeAnswer() throws {
        for seed in UInt64(1)...10 {
            let centre = Coordinate(latitude: 44.4938, longitude: 11.343 + Double(seed) * 0.001)
            let all = places(around: centre, count: 300, spread: 420, seed: seed)
            var query = GroupQuery(centre: centre)
            query.radius = 350
            query.clusterEpsilon = 25
            query.limit = 1_000
            let whole = try GroupAssembler(query: query, privacy: policy).assemble(all, at: publishedAt)
            #expect(whole.count > 12, "seed \(seed): \(whole.count) groups")
            for limit in [0, 1, 5, 12] {
                query.limit = limit
                let first = try GroupAssembler(query: query, privacy: policy).assemble(all, at: publishedAt)
                #expect(first == Array(whole.prefix(limit)), "seed \(seed), limit \(limit)")
            }
            // Each hull is its own group's: it surrounds the group's centroid.
            for g in whole {
                guard let hull = g.hull else { continue }
                let lats = hull.map(\.latitude), lons = hull.map(\.longitude)
                #expect((lats.min()! - 1e-9...lats.max()! + 1e-9).contains(g.position.latitude)
                        && (lons.min()! - 1e-9...lons.max()! + 1e-9).contains(g.position.longitude),
                        "seed \(seed): group \(String(describing: g.id))")
            }
        }
    }

    /// Entries at the same distance (cells have no id) answer in one order, whatever order
    /// they come in: it came from the read model, where a touched cell moved to the end, and
    /// an outside probe read a lone person's pings, hidden posts and 10 m sub-cell from it
    /// (session 24).
    @Test(arguments: [GroupQuery.Sort.distance, .people])
    func tiedEntriesAnswerInOneOrder(sort: GroupQuery.Sort) throws {
        let west = policy.coarsen(Coordinate(latitude: 44.4938, longitude: 11.3430))
        let east = policy.coarsen(Geodesic.wgs84.destination(from: west, bearing: 90, distance: 130))
        try #require(west.latitude == east.latitude && west.longitude != east.longitude)
        let entries = policy.publish([west, east].enumerated().map { i, c in
            LivePlace(id: Int64(i + 1), anchor: c, stats: PlaceStats(people: 1, reporters: 0, ageSum: 0, male: 0, female: 0),
                      lastActivity: publishedAt, messageCount: 0)
        }, at: publishedAt)
        try #require(entries.count == 2 && entries.allSatisfy(\.isCell))
        var query = GroupQuery(centre: Coordinate(latitude: west.latitude, longitude: (west.longitude + east.longitude) / 2))
        query.sort = sort
        let assembler = GroupAssembler(query: query, privacy: policy)
        let one = try assembler.assemble(entries), other = try assembler.assemble(entries.reversed())
        try #require(one.count == 2 && one[0].distance == one[1].distance, "\(one.map(\.distance))")
        #expect(one.map(\.position) == other.map(\.position))
        // The nearest one only: the same one either way.
        query.limit = 1
        #expect(try GroupAssembler(query: query, privacy: policy).assemble(entries).map(\.position)
                == GroupAssembler(query: query, privacy: policy).assemble(entries.reversed()).map(\.position))
    }

    /// Beyond the plane's reach (a radius over 20 km) no group has bounds: every group is
    /// measured, and the answer is the reference's.
    @Test func groupsWithoutBoundsAreStillAnswered() throws {
        let centre = Coordinate(latitude: 44.4938, longitude: 11.343)
        let all = places(around: centre, count: 300, spread: 30_000, seed: 42)
        var query = GroupQuery(centre: centre)
        query.radius = 25_000
        query.limit = 10
        let got = try GroupAssembler(query: query, privacy: policy).assemble(all, at: publishedAt)
        let want = reference(query, all)
        #expect(got.count == 10)
        let gotIDs: [Int64?] = got.map { $0.id }
        let wantIDs: [Int64?] = want.map { $0.id }
        #expect(gotIDs == wantIDs)
    }
}
