import FollaCore
import FollaGeo
import FollaTestSupport
import FollaStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

let centre = Coordinate(latitude: 44.4938, longitude: 11.3430)

func at(_ bearing: Double, _ metres: Double, from c: Coordinate = centre) -> Coordinate {
    Geodesic.wgs84.destination(from: c, bearing: bearing, distance: metres)
}

extension AppFixture {
    /// Puts `people` devices at `spot` (one place), established (they ping as often and for
    /// as long as the policy asks, on the fixture's clock), and returns the place id.
    @discardableResult
    func crowd(_ spot: Coordinate, people: Int, startingAt n: Int, age: Int? = nil, message: String? = nil) async throws -> Int {
        let rule = deps.privacy.establishment
        for round in 0..<rule.pings {
            if round == rule.pings - 1 { clock.advance(by: rule.after + 1) }
            for i in 0..<people {
                var body = #"{"device_id":"\#(String(format: "%040x", n + i))","lat":\#(spot.latitude),"lon":\#(spot.longitude)"#
                if let age { body += #","age":\#(age + i),"sex":"\#(i % 2 == 0 ? "male" : "female")""# }
                if let message, i == 0, round == rule.pings - 1 { body += #","message":"\#(message)""# }
                let r = try await post("/v1/checkins", body + "}")
                #expect(r.status == .ok)
            }
        }
        // As the sweeper would soon after: the stats snapshot of every place that has none
        // for this period (SQL/0024).
        try await snapshotStats()
        return try await placeID(near: spot)
    }

    /// The stats snapshot of the clock's period for every live place that has an older one
    /// (what a sweep does; advance the clock by `PrivacyPolicy.statsPeriod` for a new period).
    func snapshotStats() async throws {
        try await showCounts()
        try await deps.presence.snapshotStats(bucket: PrivacyPolicy.statsBucket(at: clock.now()))
    }

    /// What the first sweep of the next minute does first (at k > 1): shows every place's
    /// live count to readers (`SQL/0029`), and a public place's activity as of that minute
    /// (`SQL/0030`). The clock stays where it is.
    func showCounts() async throws {
        try await db.showCountsNow(asOf: clock.now().floored(toMultipleOf: 60).addingTimeInterval(60))
    }

    /// What a sweep does once the clock has passed the end of the current minute: shows the
    /// messages held until then (`SQL/0026`, at k > 1). Moves the clock to 1 s past it.
    func showHeldMessages() async throws {
        let now = clock.now().timeIntervalSince1970
        clock.advance(by: (now / 60).rounded(.down) * 60 + 61 - now)
        try await HeldMessages(pool: deps.presence.pool, logger: TestCluster.logger).show(before: clock.now().floored(toMultipleOf: 60))
    }

    /// The id of the live place nearest `spot` (read from the database: answers do not say).
    func placeID(near spot: Coordinate) async throws -> Int {
        let rows = try await db.query("""
            SELECT id FROM place WHERE people > 0
            ORDER BY ST_Distance(anchor, ST_SetSRID(ST_MakePoint(\(spot.longitude)::float8, \(spot.latitude)::float8), 4326)::geography)
            LIMIT 1
            """, logger: TestCluster.logger).collect()
        return try rows.first.map { Int(try $0.decode(Int64.self)) } ?? 0
    }

    func get(_ uri: String, accept: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let accept { headers[.accept] = accept }
        return try await client.execute(uri: uri, method: .get, headers: headers)
    }
}

@Suite struct GroupsAPITests {
    @Test func distancesBearingsAndTheRadiusEdgeAreGeodesic() async throws {
        try await AppFixture.run { f in
            let spots = [(30.0, 50.0), (120.0, 150.0), (250.0, 199.98), (300.0, 200.02), (10.0, 1200.0)]
            for (i, (bearing, metres)) in spots.enumerated() {
                try await f.crowd(at(bearing, metres), people: 1, startingAt: i * 10)
            }
            let r = try await f.get("/v1/groups?lat=\(centre.latitude)&lon=\(centre.longitude)&radius=200")
            #expect(r.status == .ok)
            let groups = try #require(try f.json(r)["groups"] as? [[String: Any]])
            // 199.98 m is in, 200.02 m and 1200 m are out; nearest first.
            #expect(groups.map { $0["distance_m"] as? Double ?? -1 }.map { ($0 * 100).rounded() / 100 } == [50, 150, 199.98])
            for (g, (bearing, metres)) in zip(groups, spots) {
                let lat = try #require(g["lat"] as? Double), lon = try #require(g["lon"] as? Double)
                let reference = Geodesic.wgs84.inverse(from: centre, to: Coordinate(latitude: lat, longitude: lon))
                #expect(abs((g["distance_m"] as? Double ?? 0) - reference.distance) < 0.01)
                #expect(abs((g["distance_m"] as? Double ?? 0) - metres) < 0.01)
                #expect(abs((g["bearing_deg"] as? Double ?? 0) - bearing) < 0.01)
            }
        }
    }

    @Test func minMaxSortLimitAndMessages() async throws {
        try await AppFixture.run { f in
            try await f.crowd(at(0, 40), people: 1, startingAt: 0, message: "solo")
            try await f.crowd(at(90, 80), people: 3, startingAt: 10, message: "trio")
            try await f.crowd(at(180, 120), people: 5, startingAt: 20, age: 20, message: "five")
            let base = "/v1/groups?lat=\(centre.latitude)&lon=\(centre.longitude)"
            let byPeople = try f.json(try await f.get(base + "&sort=people&messages=2"))["groups"] as? [[String: Any]] ?? []
            #expect(byPeople.map { $0["people"] as? Int } == [5, 3, 1])
            #expect((byPeople[0]["messages"] as? [[String: Any]])?.first?["text"] as? String == "five")
            let stats = try #require(byPeople[0]["stats"] as? [String: Any])
            #expect(stats["avg_age"] as? Double == 22 && stats["male"] as? Int == 3 && stats["female"] as? Int == 2)
            let middle = try f.json(try await f.get(base + "&min=2&max=4"))["groups"] as? [[String: Any]] ?? []
            #expect(middle.map { $0["people"] as? Int } == [3])
            let first = try f.json(try await f.get(base + "&limit=1"))["groups"] as? [[String: Any]] ?? []
            #expect(first.map { $0["people"] as? Int } == [1])
        }
    }

    @Test func clusteringMergesNearbyPlaces() async throws {
        try await AppFixture.run { f in
            // Three places 12 m apart in a row, and one far away.
            for i in 0..<3 { try await f.crowd(at(90, Double(i) * 12 + 30), people: i + 1, startingAt: i * 10, age: 30) }
            try await f.crowd(at(270, 150), people: 2, startingAt: 100)
            let r = try await f.get("/v1/groups?lat=\(centre.latitude)&lon=\(centre.longitude)&cluster=15")
            let groups = try #require(try f.json(r)["groups"] as? [[String: Any]])
            #expect(groups.count == 2)
            let merged = groups[0]
            #expect(merged["people"] as? Int == 6)
            #expect((merged["place_ids"] as? [Int])?.count == 3)
            let hull = try #require(merged["hull"] as? [[Double]])
            #expect(hull.count >= 4 && hull.first == hull.last)
            // People-weighted centroid: (1·30 + 2·42 + 3·54) / 6 = 46 m east.
            #expect(abs((merged["distance_m"] as? Double ?? 0) - 46) < 0.05)
            #expect((merged["stats"] as? [String: Any])?["reported"] as? Int == 6)
            // Without clustering the three stay apart.
            let apart = try f.json(try await f.get("/v1/groups?lat=\(centre.latitude)&lon=\(centre.longitude)"))["groups"] as? [[String: Any]]
            #expect(apart?.count == 4)
        }
    }

    /// A group of 2 with k = 3: never its exact position, never its breakdown, call after call.
    @Test func smallGroupsAreCoarsenedAndStable() async throws {
        try await AppFixture.run(k: 3) { f in
            let spot = at(45, 73)
            let placeID = try await f.crowd(spot, people: 2, startingAt: 0, age: 30)
            try await f.crowd(at(200, 60), people: 3, startingAt: 10, age: 40)
            var seen = Set<String>()
            for i in 0..<20 {
                // Ask from slightly different points, as a snooper averaging answers would.
                let from = at(Double(i * 18), Double(i))
                let groups = try f.json(try await f.get("/v1/groups?lat=\(from.latitude)&lon=\(from.longitude)"))["groups"] as? [[String: Any]] ?? []
                let small = try #require(groups.first { $0["people"] as? Int == 2 })
                let lat = small["lat"] as? Double ?? 0, lon = small["lon"] as? Double ?? 0
                seen.insert("\(lat),\(lon)")
                #expect(small["coarsened"] as? Bool == true)
                #expect(small["stats"] is NSNull)
                #expect(Geodesic.wgs84.distance(from: spot, to: Coordinate(latitude: lat, longitude: lon)) > 1)
                let big = try #require(groups.first { $0["people"] as? Int == 3 })
                #expect(big["coarsened"] as? Bool == false && big["stats"] is [String: Any])
            }
            #expect(seen.count == 1)
            // A small group has no public id: its place answers like an unknown one.
            #expect(try await f.get("/v1/places/\(placeID)").status == .notFound)
        }
    }

    @Test(arguments: [
        ("lon=11.3", "lat"), ("lat=44.4&lon=NaN", "lon"), ("lat=44.4&lon=11.3&radius=10", "radius"),
        ("lat=44.4&lon=11.3&radius=50001", "radius"), ("lat=44.4&lon=11.3&radius=", "radius"),
        ("lat=44.4&lon=11.3&format=csv", "format"), ("lat=44.4&lon=11.3&limit=0", "limit"),
        ("lat=44%00garbage&lon=11.3", "lat"), ("lat=44.4&lon=11.3&radius=0x1p5", "radius"), ("lat=0x2C.7D&lon=11.3", "lat"),
        ("lat=44.4&lon=11.3&limit=0x10", "limit"), ("lat=44.4&lon=11.3&radius=1e400", "radius"),
        ("lat=44.4&lon=11.3&messages=11", "messages"), ("lat=44.4&lon=11.3&sort=name", "sort"),
        ("lat=44.4&lon=11.3&cluster=-1", "cluster"), ("lat=44.4&lon=11.3&colour=red", "colour"),
        ("lat=44.4&lat=45&lon=11.3", "lat"), ("lat=144.4&lon=11.3", "lat"),
    ])
    func badParametersAreNamed(query: String, field: String) async throws {
        try await AppFixture.run { f in
            let r = try await f.get("/v1/groups?" + query)
            #expect(r.status == .badRequest)
            #expect(r.headers[.contentType] == "application/problem+json")
            #expect((try f.json(r)["invalid_params"] as? [[String: Any]])?.first?["name"] as? String == field, "\(query)")
        }
    }

    @Test func contentNegotiation() async throws {
        try await AppFixture.run { f in
            let base = "/v1/groups?lat=1&lon=2"
            let html = try await f.get(base, accept: "text/html").status
            #expect(html == .notAcceptable)
            let cases: [(String, String, String)] = [
                (base, "application/xml", "application/xml"),
                (base, "application/geo+json", "application/geo+json"),
                (base, "text/html, application/xml;q=0.5, application/json;q=0.9", "application/json"),
                (base + "&format=xml", "application/json", "application/xml"),
                (base, "*/*", "application/json"),
            ]
            for (uri, accept, expected) in cases {
                let type = try await f.get(uri, accept: accept).headers[.contentType] ?? ""
                #expect(type.hasPrefix(expected), "\(accept) → \(type)")
            }
        }
    }

    @Test func placeDetail() async throws {
        try await AppFixture.run { f in
            let id = try await f.crowd(at(0, 100), people: 2, startingAt: 0, message: "hello <there>")
            let r = try await f.get("/v1/places/\(id)?lat=\(centre.latitude)&lon=\(centre.longitude)")
            #expect(r.status == .ok)
            let d = try f.json(r)
            #expect(d["people"] as? Int == 2)
            #expect(abs((d["distance_m"] as? Double ?? 0) - 100) < 0.01)
            #expect((d["messages"] as? [[String: Any]])?.first?["text"] as? String == "hello <there>")
            #expect(try await f.get("/v1/places/99999").status == .notFound)
            #expect(try await f.get("/v1/places/abc").status == .badRequest)
            // Once everyone leaves, the place is gone from reads.
            for i in 0..<2 { _ = try await f.client.execute(uri: "/v1/devices/\(String(format: "%040x", i))", method: .delete) }
            #expect(try await f.get("/v1/places/\(id)").status == .notFound)
        }
    }

    @Test func checkInCanAnswerTheGroupsAroundIt() async throws {
        try await AppFixture.run { f in
            try await f.crowd(at(90, 50), people: 2, startingAt: 10)
            let r = try await f.post("/v1/checkins?include=groups&radius=100&min=2",
                                     #"{"device_id":"\#(udidA)","lat":\#(centre.latitude),"lon":\#(centre.longitude)}"#)
            #expect(r.status == .ok)
            let groups = try #require(try f.json(r)["groups"] as? [[String: Any]])
            #expect(groups.map { $0["people"] as? Int } == [2])
            // Bad search parameters are refused before the check-in is written.
            let bad = try await f.post("/v1/checkins?include=groups&radius=1",
                                       #"{"device_id":"0123456789abcdef0999","lat":1,"lon":1}"#)
            #expect(bad.status == .badRequest)
            #expect(try await f.rowCounts()[0] == 3)
        }
    }
}
