import FollaCore
import FollaTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Map clients: `GET /v1/groups?bbox=&zoom=` and `GET /v1/clusters/{id}/children` through
/// the real router on a real PostGIS.
@Suite struct MapAPITests {
    static let bologna = Coordinate(latitude: 44.4938, longitude: 11.3426)

    func clusters(_ f: AppFixture, _ query: String) async throws -> [String: Any] {
        let r = try await f.get("/v1/groups?" + query)
        #expect(r.status == .ok, "\(query): \(String(buffer: r.body))")
        return try f.json(r)
    }

    /// Spots around Bologna, 1 to 6 people each, some a few metres apart.
    func populate(_ f: AppFixture) async throws -> Int {
        var rng = SeededRandom(seed: 13)
        var n = 1, total = 0
        for _ in 0..<14 {
            let spot = Coordinate(latitude: Self.bologna.latitude + Double.random(in: -0.03...0.03, using: &rng),
                                  longitude: Self.bologna.longitude + Double.random(in: -0.04...0.04, using: &rng))
            let people = Int.random(in: 1...6, using: &rng)
            _ = try await f.crowd(spot, people: people, startingAt: n)
            n += people
            total += people
        }
        return total
    }

    /// Everyone the policy shows is in some cluster at every zoom, in JSON and GeoJSON alike;
    /// a cluster's children hold its people, and it splits at its expansion zoom.
    @Test func peopleAreConservedAtEveryZoom() async throws {
        try await AppFixture.run(k: 1) { f in
            let total = try await populate(f)
            for zoom in [0, 4, 8, 11, 13, 15, 17, 20] {
                let doc = try await clusters(f, "bbox=11.2,44.4,11.5,44.6&zoom=\(zoom)")
                let list = try #require(doc["clusters"] as? [[String: Any]])
                #expect(list.reduce(0) { $0 + ($1["people"] as! Int) } == total, "zoom \(zoom)")
                #expect(doc["people"] as? Int == total)
                let geo = try f.json(try await f.get("/v1/groups?bbox=11.2,44.4,11.5,44.6&zoom=\(zoom)&format=geojson"))
                let features = try #require(geo["features"] as? [[String: Any]])
                #expect(features.count == list.count)
                #expect(features.reduce(0) { $0 + (($1["properties"] as! [String: Any])["people"] as! Int) } == total)
                for c in list where c["cluster"] as? Bool == true {
                    let id = try #require(c["cluster_id"] as? Int)
                    let kids = try f.json(try await f.get("/v1/clusters/\(id)/children"))
                    let children = try #require(kids["clusters"] as? [[String: Any]])
                    #expect(children.reduce(0) { $0 + ($1["people"] as! Int) } == c["people"] as? Int)
                    #expect(kids["expansion_zoom"] as? Int == c["expansion_zoom"] as? Int)
                    #expect((c["expansion_zoom"] as? Int ?? 0) > zoom || zoom > 16)
                }
            }
            // A 256-pixel client at zoom z sees what a 512-pixel one sees at z - 1.
            let small = try await clusters(f, "bbox=11.2,44.4,11.5,44.6&zoom=12&tile=256")
            let large = try await clusters(f, "bbox=11.2,44.4,11.5,44.6&zoom=11")
            #expect((small["clusters"] as? [[String: Any]])?.count == (large["clusters"] as? [[String: Any]])?.count)
            #expect(try await f.get("/v1/clusters/99999999/children").status == .notFound)
        }
    }

    /// The policy applies before clustering: a lone person is a cell (no id, the cell's
    /// centre) at every zoom, and a cluster of fewer than k people shows at its cell too.
    @Test func clustersAreNoFinerThanThePolicy() async throws {
        try await AppFixture.run(k: 3) { f in
            let lone = Coordinate(latitude: 44.50123, longitude: 11.35077)
            _ = try await f.crowd(lone, people: 1, startingAt: 1)
            _ = try await f.crowd(Self.bologna, people: 4, startingAt: 10)
            let cell = f.deps.privacy.coarsen(lone)
            for zoom in [3, 12, 16, 18, 22] {
                let list = try #require(try await clusters(f, "bbox=11.2,44.4,11.5,44.6&zoom=\(zoom)")["clusters"] as? [[String: Any]])
                #expect(list.reduce(0) { $0 + ($1["people"] as! Int) } == 5)
                for c in list where (c["people"] as! Int) < 3 {
                    #expect(c["coarsened"] as? Bool == true && c["place_id"] is NSNull)
                    let at = Coordinate(latitude: c["lat"] as! Double, longitude: c["lon"] as! Double)
                    #expect(abs(at.latitude - cell.latitude) < 1e-6 && abs(at.longitude - cell.longitude) < 1e-6, "zoom \(zoom): \(c)")
                }
            }
        }
    }

    @Test func aBoxAcrossTheAntimeridianHoldsBothSides() async throws {
        try await AppFixture.run(k: 1) { f in
            _ = try await f.crowd(Coordinate(latitude: -17.7, longitude: 179.95), people: 2, startingAt: 1)
            _ = try await f.crowd(Coordinate(latitude: -17.7, longitude: -179.95), people: 3, startingAt: 10)
            _ = try await f.crowd(Coordinate(latitude: -17.7, longitude: 170.0), people: 4, startingAt: 20)
            let doc = try await clusters(f, "bbox=179,-18,-179,-17&zoom=12")
            #expect(doc["people"] as? Int == 5)
        }
    }

    /// A viewport that would answer more than 10 000 clusters is a 400 that says why; the
    /// same crowd zoomed out clusters into an answer.
    @Test func tooManyClustersIsA400ThatSaysWhy() async throws {
        try await AppFixture.run(k: 1) { f in
            _ = try await f.db.query("""
                INSERT INTO place (anchor, people, counted, reporters, age_sum, male, female, created_at, last_activity, mix)
                SELECT ST_SetSRID(ST_MakePoint(11.30 + (i % 101) * 0.0004, 44.48 + (i / 101) * 0.0003), 4326)::geography,
                       1, 1, 0, 0, 0, 0, now(), now(), 0
                FROM generate_series(0, 10099) i
                """, logger: TestCluster.logger)
            let r = try await f.get("/v1/groups?bbox=11.29,44.47,11.35,44.52&zoom=20")
            #expect(r.status == .badRequest)
            let detail = try #require(try f.json(r)["detail"] as? String)
            #expect(detail.contains("10100 clusters") && detail.contains("zoom out or narrow"), "\(detail)")
            let zoomedOut = try await clusters(f, "bbox=11.29,44.47,11.35,44.52&zoom=12")
            #expect(zoomedOut["people"] as? Int == 10_100)
        }
    }

    @Test(arguments: [
        ("bbox=11.2,44.6,11.5,44.4&zoom=10", "bbox"),  // south edge north of the north edge
        ("bbox=11.2,44.4,11.5&zoom=10", "bbox"),
        ("bbox=11.2,44.4,181,44.6&zoom=10", "bbox"),
        ("bbox=11.2,-91,11.5,44.6&zoom=10", "bbox"),
        ("bbox=11.2,NaN,11.5,44.6&zoom=10", "bbox"),
        ("bbox=11.2,44.4,11.5,44.6", "zoom"),
        ("zoom=3", "bbox"),
        ("bbox=11.2,44.4,11.5,44.6&zoom=25", "zoom"),
        ("bbox=11.2,44.4,11.5,44.6&zoom=3&tile=300", "tile"),
        ("bbox=11.2,44.4,11.5,44.6&zoom=3&lat=44.5", "lat"),
        ("bbox=11.2,44.4,11.5,44.6&zoom=3&radius=200", "radius"),
    ])
    func badViewportsAreNamed(query: String, field: String) async throws {
        try await AppFixture.run { f in
            let r = try await f.get("/v1/groups?" + query)
            #expect(r.status == .badRequest, "\(query)")
            let params = try #require(try f.json(r)["invalid_params"] as? [[String: Any]])
            #expect(params.first?["name"] as? String == field, "\(query): \(params)")
        }
    }
}
