import FollaCore
import FollaGeo
import FollaTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// The ways a snooper could pin down a group smaller than k, each shut.
@Suite struct PrivacyAttackTests {
    func groups(_ f: AppFixture, _ query: String) async throws -> [[String: Any]] {
        try f.json(try await f.get("/v1/groups?lat=\(centre.latitude)&lon=\(centre.longitude)&" + query))["groups"] as? [[String: Any]] ?? []
    }

    /// The check-in answer does not give away the founder's spot or the breakdown.
    @Test func checkInAnswerIsCoarsenedForSmallPlaces() async throws {
        try await AppFixture.run(k: 3) { f in
            _ = try await f.post("/v1/checkins", #"{"device_id":"\#(dev(1))","lat":\#(centre.latitude),"lon":\#(centre.longitude),"age":33,"sex":"female"}"#)
            let probe = at(45, 6)
            let r = try f.json(try await f.post("/v1/checkins", #"{"device_id":"\#(dev(2))","lat":\#(probe.latitude),"lon":\#(probe.longitude)}"#))
            let place = try #require(r["place"] as? [String: Any])
            #expect(r["outcome"] as? String == "joined")
            #expect(place["coarsened"] as? Bool == true && place["stats"] is NSNull && r["distance_m"] is NSNull)
            let shown = Coordinate(latitude: place["lat"] as? Double ?? 0, longitude: place["lon"] as? Double ?? 0)
            #expect(Geodesic.wgs84.distance(from: shown, to: centre) > 1)
            // The third person makes the place big enough: now exact.
            let third = try f.json(try await f.post("/v1/checkins", #"{"device_id":"\#(dev(3))","lat":\#(probe.latitude),"lon":\#(probe.longitude)}"#))
            #expect((third["place"] as? [String: Any])?["coarsened"] as? Bool == false)
            #expect((third["place"] as? [String: Any])?["lat"] as? Double == centre.latitude)
        }
    }

    /// Moving the radius across the real distance changes nothing: inclusion follows the cell.
    @Test func radiusProbingFindsOnlyTheCell() async throws {
        try await AppFixture.run(k: 3) { f in
            let spot = at(72, 150)
            try await f.crowd(spot, people: 2, startingAt: 0)
            let wide = try await groups(f, "radius=1000")
            let coarseDistance = try #require(wide.first?["distance_m"] as? Double)
            try #require(abs(coarseDistance - 150) > 1, "the cell centre happens to be 150 m away; pick another spot")
            for r in [149.7, 150.3] {
                let found = try await groups(f, "radius=\(r)")
                #expect(found.isEmpty == (coarseDistance > r), "radius \(r), cell at \(coarseDistance) m")
            }
        }
    }

    /// A small place merged into a big cluster adds people but not its breakdown, and the
    /// hull and centroid use only its cell.
    @Test func clustersDoNotRevealSmallMembers() async throws {
        try await AppFixture.run(k: 3) { f in
            let big = at(0, 60), small = at(0, 75)
            try await f.crowd(big, people: 4, startingAt: 0, age: 20)
            try await f.crowd(small, people: 1, startingAt: 10, age: 70)
            let alone = try await groups(f, "radius=500")
            let bigStats = try #require(alone.first { $0["people"] as? Int == 4 }?["stats"] as? [String: Any])
            let merged = try await groups(f, "radius=500&cluster=200")
            let cluster = try #require(merged.first { $0["people"] as? Int == 5 })
            let stats = try #require(cluster["stats"] as? [String: Any])
            #expect(stats["reported"] as? Int == bigStats["reported"] as? Int)
            #expect(stats["avg_age"] as? Double == bigStats["avg_age"] as? Double)
            let hull = try #require(cluster["hull"] as? [[Double]])
            for v in hull {
                #expect(Geodesic.wgs84.distance(from: Coordinate(latitude: v[1], longitude: v[0]), to: small) > 1)
            }
        }
    }

    @Test func placeDetailWithoutAPositionGivesNoDistanceToTheAnchor() async throws {
        try await AppFixture.run(k: 3) { f in
            let id = try await f.crowd(at(10, 40), people: 1, startingAt: 0)
            let d = try f.json(try await f.get("/v1/places/\(id)"))
            #expect(d["coarsened"] as? Bool == true)
            #expect(d["distance_m"] as? Double == 0)
        }
    }
}
