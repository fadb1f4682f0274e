import FollaAPI
import FollaCore
import FollaGeo
import FollaStore
import FollaTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// The adversarial suite, part 2: profiling (age and sex), linking (following a person,
/// attributing messages) and cheap ids, at the default k = 3 on the real server.
@Suite struct PrivacyLinkingTests {
    func groups(_ f: AppFixture, _ query: String = "radius=2000") async throws -> [[String: Any]] {
        try f.json(try await f.get("/v1/groups?lat=\(centre.latitude)&lon=\(centre.longitude)&" + query))["groups"] as? [[String: Any]] ?? []
    }

    /// Reading a group of 4 before and after one person leaves does not give that person's
    /// age: over six groups, the difference misses by more than 4 years on average (it was
    /// exact in every one before: 4 × 40.0 − 3 × 40.0 = 40). The departure shows in the
    /// stats at the next period's snapshot (SQL/0024).
    ///
    /// Why the mean and not a count of near hits: the noise before and after is independent
    /// (the reporters' mix changes), so each difference lands within 2 years ~5 % of the time,
    /// and "4 misses of 6" failed a correct server 1 run in 400 (it did in CI). The mean
    /// absolute miss is ≤ 4 years in ~2 runs per 100 000 (Monte Carlo of this exact rounding
    /// and clamping), while the same noise on both reads (the leak this guards against) keeps
    /// it ≤ 4 years in 98 % of runs (3.0 with the seed's mix taken out of `stats`). The ages
    /// sit mid-range so that the clamp at 13 never hides such a leak.
    @Test func statsCannotBeDifferencedByADeparture() async throws {
        try await AppFixture.run(k: 3) { f in
            var misses: [Double] = []
            for g in 0..<6 {
                let spot = at(Double(g) * 60, 400)
                try await f.crowd(spot, people: 4, startingAt: 100 * g, age: 40 + 7 * g)
                let before = try #require(try await groups(f).first { Geodesic.wgs84.distance(from: spot, to: position($0)) < 20 })
                let avg4 = try #require((before["stats"] as? [String: Any])?["avg_age"] as? Double)
                // The fourth person (age 43 + 7g) leaves.
                #expect(try await f.client.execute(uri: "/v1/devices/\(String(format: "%040x", 100 * g + 3))", method: .delete).status == .noContent)
                f.clock.advance(by: PrivacyPolicy.statsPeriod)
                try await f.snapshotStats()
                let after = try #require(try await groups(f).first { Geodesic.wgs84.distance(from: spot, to: position($0)) < 20 })
                let avg3 = try #require((after["stats"] as? [String: Any])?["avg_age"] as? Double)
                let inferred = 4 * avg4 - 3 * avg3
                misses.append(abs(inferred - Double(43 + 7 * g)))
                // Re-reading the same people gives the same answer: nothing to average.
                let again = try #require(try await groups(f).first { Geodesic.wgs84.distance(from: spot, to: position($0)) < 20 })
                #expect((again["stats"] as? [String: Any])?["avg_age"] as? Double == avg3)
            }
            let mean = misses.reduce(0, +) / Double(misses.count)
            #expect(mean > 4, "the departed person's age was recovered to \(mean) years on average: \(misses)")
        }
    }

    /// Within a stats period a public group's figures stand still, whoever moves in or out:
    /// an attacker's devices joining in ever new subsets draw nothing fresh to average. Before
    /// (an outside probe, session 23), each subset of a dozen devices redrew the noise of the
    /// live figures; 200 reads in a minute gave a group's exact age sum, and one honest
    /// leaver's age to ±3 years and their sex.
    @Test func statsCannotBeAveragedByMovingDevicesInAndOut() async throws {
        try await AppFixture.run(k: 3) { f in
            let spot = at(30, 300), away = at(30, 380)
            let placeID = try await f.crowd(spot, people: 3, startingAt: 0, age: 25)
            _ = try await f.crowd(away, people: 5, startingAt: 50, age: 40)
            var seen = Set<String>()
            for round in 1..<12 {
                f.clock.advance(by: 2)
                for i in 0..<5 {
                    let to = (round >> i) & 1 == 1 ? spot : away
                    let r = try await f.post("/v1/checkins", #"{"device_id":"\#(String(format: "%040x", 50 + i))","lat":\#(to.latitude),"lon":\#(to.longitude),"age":\#(40 + i),"sex":"\#(i % 2 == 0 ? "male" : "female")"}"#)
                    #expect(r.status == .ok)
                }
                let place = try f.json(try await f.get("/v1/places/\(placeID)"))
                let stats = try #require(place["stats"] as? [String: Any], "\(place)")
                seen.insert("\(stats["avg_age"] ?? "-") \(stats["male"] ?? "-") \(stats["female"] ?? "-")")
            }
            #expect(seen.count == 1, "\(seen.count) different figures in one period: \(seen.sorted())")
            // The next period's snapshot takes whoever is there then: a fresh draw, once.
            f.clock.advance(by: PrivacyPolicy.statsPeriod)
            try await f.snapshotStats()
            let next = try #require(try f.json(try await f.get("/v1/places/\(placeID)"))["stats"] as? [String: Any])
            #expect(next["avg_age"] as? Double != nil)
        }
    }

    /// A small group has no identity across reads: no id, no place ids, and no messages (a
    /// cell shows none: see `aMessageDoesNotTellWhetherItsPosterJoinedSomeone`), in JSON,
    /// GeoJSON, XML and on walls.
    @Test func smallGroupsCannotBeFollowed() async throws {
        try await AppFixture.run(k: 3) { f in
            let spot = at(10, 120)
            let id = try await f.crowd(spot, people: 1, startingAt: 1, message: "eccomi")
            try await f.showHeldMessages()
            let g = try #require(try await groups(f, "radius=2000&messages=5").first)
            #expect(g["id"] is NSNull && (g["place_ids"] as? [Any])?.isEmpty == true)
            #expect((g["messages"] as? [[String: Any]])?.isEmpty == true && g["message_count"] as? Int == 0)
            let geo = String(buffer: try await f.get("/v1/groups?lat=\(centre.latitude)&lon=\(centre.longitude)&radius=2000",
                                                      accept: "application/geo+json").body)
            let xml = String(buffer: try await f.get("/v1/groups?lat=\(centre.latitude)&lon=\(centre.longitude)&radius=2000&messages=5",
                                                      accept: "application/xml").body)
            for needle in ["\"group-\(id)\"", "\"place_ids\":[\(id)", "\"place_id\":\(id)"] { #expect(!geo.contains(needle), "\(geo)") }
            for needle in ["<group id=\"\(id)\"", "place_id=\"\(id)\"", "<place_id>\(id)</place_id>"] { #expect(!xml.contains(needle), "\(xml)") }
            let wall = try f.json(try await f.get("/v1/wall?lat=\(spot.latitude)&lon=\(spot.longitude)&radius=300"))
            let spotEntry = try #require((wall["busiest"] as? [[String: Any]])?.first)
            #expect(spotEntry["place_id"] is NSNull)
            #expect((wall["messages"] as? [[String: Any]])?.isEmpty == true)
            #expect(!xml.contains("eccomi") && !geo.contains("eccomi"))
        }
    }

    /// No stored time joins a message to a device row, and answers carry minutes only.
    @Test func messageTimesDoNotJoinDevices() async throws {
        try await AppFixture.run(k: 3) { f in
            f.clock.advance(by: 17.25)
            try await f.crowd(at(0, 30), people: 3, startingAt: 1, message: "a che ora?")
            _ = try await f.post("/v1/messages", #"{"device_id":"\#(dev(2))","text":"adesso"}"#)
            let rows = try await f.db.query("""
                SELECT count(*)::int FROM message m JOIN device d ON m.created_at = d.last_seen
                """, logger: TestCluster.logger).collect()
            #expect(try rows[0].decode(Int.self) == 0)
            let seconds = try await f.db.query("SELECT count(*)::int FROM message WHERE extract(second FROM created_at) <> 0",
                                               logger: TestCluster.logger).collect()
            #expect(try seconds[0].decode(Int.self) == 0)
        }
    }

    /// A cell's `last_activity` and its area wall's `updated_at` turn when the clock enters
    /// a quarter hour, and a public place's when it enters a minute, not at the first ping
    /// after it. Floored to the step of the newest ping, they turned at that ping: polling
    /// told a lone person's ping time to ~0.2 s once per quarter (an outside probe, session
    /// 23), and a public place's one member's ping, or a post, to ~0.1 s (session 24). The
    /// public place's is computed at the minute's first sweep (`SQL/0030`), which runs here
    /// after every move of the clock, as it would every few seconds.
    @Test func activityTellsNoPingTime() async throws {
        try await AppFixture.run(k: 3) { f in
            let sweeper = PresenceSweeper(presence: f.deps.presence, database: f.deps.database, clock: f.clock,
                                          interval: .seconds(5), logger: TestCluster.logger)
            func advance(by seconds: Double) async throws {
                f.clock.advance(by: seconds)
                try await sweeper.sweep()
            }
            let spot = at(0, 30), crowded = at(180, 600)
            try await f.crowd(spot, people: 1, startingAt: 1)
            let place = try await f.crowd(crowded, people: 3, startingAt: 10)
            // The lone person's cell (groups, area wall) and a public place (by id).
            func shown() async throws -> [String] {
                let cell = try #require(try await groups(f, "radius=300").first)
                let wall = try f.json(try await f.get("/v1/wall?lat=\(spot.latitude)&lon=\(spot.longitude)&radius=300"))
                let public_ = try f.json(try await f.get("/v1/places/\(place)"))
                return [cell["last_activity"] as? String ?? "none", wall["updated_at"] as? String ?? "none",
                        public_["last_activity"] as? String ?? "none"]
            }
            // Everyone pings, as phones do every 30 s (the public place's three included).
            func ping() async throws {
                for (device, at) in [(1, spot), (10, crowded), (11, crowded), (12, crowded)] {
                    let r = try await f.post("/v1/checkins", #"{"device_id":"\#(dev(device))","lat":\#(at.latitude),"lon":\#(at.longitude)}"#)
                    #expect(r.status == .ok)
                }
            }
            // Everyone pings 20 s before a quarter hour, and the answer is read 10 s after it,
            // before anyone has pinged in the new quarter (and minute).
            let second = f.clock.now().timeIntervalSince1970.truncatingRemainder(dividingBy: 900)
            try await advance(by: 900 - second - 20)
            try await ping()
            try await advance(by: 30)
            let before = try await shown()
            try await advance(by: 10)
            try await ping()
            let after = try await shown()
            #expect(after == before, "turned at the first ping of the quarter (and of the minute)")
            // The next quarter hour turns the cell; the public place turns at the next minute,
            // not at the pings within it.
            try await advance(by: 900)
            try await ping()
            try await advance(by: 10)
            let next = try await shown()
            #expect(next[0] != before[0] && next[1] != before[1])
            try await advance(by: 20)
            try await ping()
            #expect(try await shown() == next)
            try await advance(by: 60)
            #expect(try await shown()[2] != next[2], "the public place's minute turns with the clock, ping or not")
            // Silent for a whole minute and more, then a ping: the same before it and after it
            // (capped at the previous minute, it turned at that ping: session 24).
            let now = f.clock.now().timeIntervalSince1970
            try await advance(by: (now / 60).rounded(.down) * 60 + 150 - now)
            let silent = try await shown()
            try await ping()
            #expect(try await shown() == silent, "a ping after a silent minute turned it")
        }
    }

    /// A message shows from the end of its minute (`SQL/0026`), not at its post: no group,
    /// count, wall or report shows it before a sweep after the minute turns. Shown at once,
    /// it appeared within a second of its post, and beside its place's count going up in the
    /// same read it named its author among the people just arrived.
    @Test func messagesShowWhenTheirMinuteEnds() async throws {
        try await AppFixture.run(k: 3) { f in
            let spot = at(0, 30)
            try await f.crowd(spot, people: 3, startingAt: 1)
            func shown() async throws -> [String] {
                let g = try #require(try await groups(f, "radius=2000&messages=5").first)
                let wall = try f.json(try await f.get("/v1/wall?lat=\(spot.latitude)&lon=\(spot.longitude)&radius=300"))
                return ["\(g["message_count"] as? Int ?? -1)"] + (g["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
                    + (wall["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
            }
            func activity() async throws -> String { try #require(try await groups(f).first)["last_activity"] as? String ?? "none" }
            // 10 s into a minute.
            let second = f.clock.now().timeIntervalSince1970.truncatingRemainder(dividingBy: 60)
            f.clock.advance(by: 60 - second + 10)
            let before = try await activity()
            let posted = try await f.postMessage(dev(2), "appena arrivata")
            #expect(posted.status == .created)
            let id = try #require(try f.json(posted)["id"] as? Int)
            #expect(try await shown() == ["0"])
            #expect(try await f.post("/v1/messages/\(id)/reports", #"{"device_id":"\#(dev(3))"}"#).status == .notFound)
            // Nor does the place's last activity turn at the post, nor a page take it as cursor.
            #expect(try await activity() == before)
            let place = try await f.placeID(near: spot)
            #expect(try await f.get("/v1/places/\(place)/messages?before=\(id)").status == .badRequest)
            // A sweep within the minute shows nothing.
            f.clock.advance(by: 40)
            try await HeldMessages(pool: f.deps.presence.pool, logger: TestCluster.logger).show(before: f.clock.now().floored(toMultipleOf: 60))
            #expect(try await shown() == ["0"])
            try await f.showHeldMessages()
            #expect(try await shown() == ["1", "appena arrivata", "appena arrivata"])
            // A post is no activity, shown or not (a silent lone person's cell turned at it).
            #expect(try await activity() == before)
            #expect(try await f.get("/v1/places/\(place)/messages?before=\(id)").status == .ok)
        }
    }

    /// Invented ids from one network: the 31st new id in ten minutes is a 429 with
    /// Retry-After and writes nothing; a device already known is not limited.
    @Test func newDeviceIDsAreBudgetedPerNetwork() async throws {
        try await AppFixture.run(.live, k: 3) { f in
            for i in 0..<30 {
                let r = try await f.post("/v1/checkins", #"{"device_id":"\#(dev(5000 + i))","lat":44.4938,"lon":11.343}"#)
                #expect(r.status == .ok)
            }
            let before = try await f.rowCounts()
            let refused = try await f.post("/v1/checkins", #"{"device_id":"\#(dev(6000))","lat":44.4938,"lon":11.343}"#)
            #expect(refused.status == .tooManyRequests && refused.headers[.retryAfter] != nil)
            #expect(try await f.rowCounts() == before)
            let known = try await f.post("/v1/checkins", #"{"device_id":"\#(dev(5000))","lat":44.4938,"lon":11.343}"#)
            #expect(known.status == .ok)
            f.clock.advance(by: 601)
            #expect(try await f.post("/v1/checkins", #"{"device_id":"\#(dev(6000))","lat":44.4938,"lon":11.343}"#).status == .ok)
        }
    }

    /// Fresh ids can neither post nor hide: messages and reports need an established device.
    @Test func freshIDsCanNeitherPostNorHide() async throws {
        try await AppFixture.run(k: 3) { f in
            try await f.crowd(at(0, 30), people: 3, startingAt: 1, message: "vero")
            try await f.showHeldMessages()
            let message = try #require(try await groups(f, "radius=500&messages=1").first.flatMap { ($0["messages"] as? [[String: Any]])?.first })
            let messageID = try #require(message["id"] as? Int)
            for fake in 900..<903 {
                _ = try await f.post("/v1/checkins", #"{"device_id":"\#(dev(fake))","lat":\#(centre.latitude),"lon":\#(centre.longitude)}"#)
                let report = try await f.post("/v1/messages/\(messageID)/reports", #"{"device_id":"\#(dev(fake))"}"#)
                #expect(report.status == .forbidden)
                let post = try await f.post("/v1/messages", #"{"device_id":"\#(dev(fake))","text":"ciao \#(fake)"}"#)
                #expect(post.status == .forbidden)
                let withPing = try await f.post("/v1/checkins", #"{"device_id":"\#(dev(fake))","lat":\#(centre.latitude),"lon":\#(centre.longitude),"message":"ciao"}"#)
                #expect(withPing.status == .forbidden)
            }
            let still = try await groups(f, "radius=500&messages=5").first?["messages"] as? [[String: Any]]
            #expect(still?.map { $0["text"] as? String } == ["vero"])
        }
    }

    /// Place ids say nothing of founding order. They were a sequence, so an attacker founding a
    /// public place on each side of a probe's ping read from the gap between the two ids
    /// whether the probe had founded a place (nobody within the join radius) or joined one.
    /// Ten places founded one after another: their public ids are not in founding order, and
    /// stay within the legacy endpoints' 32 bits. A sequence is always in order; ids of a
    /// random-keyed permutation are by luck 1 time in 10! ≈ 3.6 million (it was 8 places: 1 in
    /// 40 000, too often for a test that must not fail a correct server).
    @Test func placeIDsDoNotCountFoundings() async throws {
        try await AppFixture.run(k: 3) { f in
            var ids: [Int] = []
            for g in 0..<10 {
                let id = try await f.crowd(at(Double(g) * 45, 300 + 150 * Double(g)), people: 3, startingAt: 100 * g)
                #expect(try await f.get("/v1/places/\(id)").status == .ok)
                ids.append(id)
            }
            #expect(Set(ids).count == 10)
            #expect(ids != ids.sorted(), "ids in founding order: \(ids)")
            #expect(ids.allSatisfy { (1 << 30) <= $0 && $0 <= Int(Int32.max) }, "\(ids)")
        }
    }

    func position(_ g: [String: Any]) -> Coordinate {
        Coordinate(latitude: g["lat"] as? Double ?? 0, longitude: g["lon"] as? Double ?? 0)
    }
}
