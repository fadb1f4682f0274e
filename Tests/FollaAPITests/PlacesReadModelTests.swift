import FollaCore
import FollaServices
import FollaTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// The groups read model (`PlacesReadModel`, fed by SQL/0014's change cursor) must answer
/// exactly what direct reads answer once its period has passed, whatever changed: moves,
/// arrivals, check-outs, messages added, hidden and deleted, and changes committed out of
/// the order their transactions began.
@Suite struct PlacesReadModelTests {
    static let period = Duration.milliseconds(300)

    /// What a reader sees of a group: enough to catch a stale count, place or message.
    static func show(_ g: Group) -> String {
        "\(g.id ?? -1):\(g.position):\(g.isCoarsened):\(g.distance):\(g.people):\(String(describing: g.stats)):"
            + "\(g.lastActivity.timeIntervalSince1970):\(g.messageCount):\(g.messages.map { "\($0.id)/\($0.placeID ?? -1)/\($0.createdAt)" })"
            + ":\(g.memberPlaceIDs):\(g.hull?.count ?? -1)"
    }

    /// Compares the model with direct reads on a fixed set of queries, after the period.
    /// - Parameter big: whether places of k or more exist by now (with k > 1, the answers
    ///   must then show both cells and places).
    static func expectSame(_ pairs: [(model: GroupService, direct: GroupService)], _ when: String, big: Bool = true) async throws {
        try await Task.sleep(for: period + .milliseconds(30))
        for (model, direct) in pairs {
            let seen = try await expectSame(model, direct, "\(when), k = \(direct.privacy.k)")
            if direct.privacy.k > 1 {
                #expect(seen.cells > 0, "\(when): cells must be answered")
                if big { #expect(seen.places > 0, "\(when): places of k or more must be answered") }
            }
        }
    }

    /// - Returns: how many cells and places the direct answers showed.
    static func expectSame(_ model: GroupService, _ direct: GroupService, _ when: String) async throws -> (cells: Int, places: Int) {
        var seen = (cells: 0, places: 0)
        var nonEmpty = 0
        // Ready groups as they are (messages 5), cut (2) and without messages (0); clusters
        // merge entries and their messages their own way. With a small limit the model walks
        // only as far as the nearest need (with a people filter: the nearest admitted), also
        // over a radius wider than the places.
        let shapes: [(messages: Int, cluster: Double?, limit: Int, min: Int, radius: Double)] = [
            (5, nil, 1000, 1, 350), (2, nil, 1000, 1, 350), (0, nil, 1000, 1, 350), (3, 60, 1000, 1, 350),
            (0, nil, 3, 1, 350), (1, nil, 7, 2, 1500), (0, nil, 1, 1, 2000), (0, nil, 12, 1, 600),
        ]
        for i in 0..<24 {
            var query = GroupQuery(centre: Coordinate(latitude: 44.4920 + Double(i % 4) * 0.0012, longitude: 11.3410 + Double(i % 6) * 0.0010))
            let shape = shapes[i % shapes.count]
            query.radius = shape.radius
            query.limit = shape.limit
            query.minPeople = shape.min
            query.messages = shape.messages
            query.clusterEpsilon = shape.cluster
            let answer = try await direct.groups(for: query)
            seen.cells += answer.filter(\.isCoarsened).count
            seen.places += answer.filter { !$0.isCoarsened }.count
            let a = answer.map(show)
            let b = try await model.groups(for: query).map(show)
            #expect(a == b, "\(when): centre \(query.centre), shape \(shape)")
            if !a.isEmpty { nonEmpty += 1 }
        }
        #expect(nonEmpty >= 12, "\(when): the queries must see groups")
        return seen
    }

    /// Places in `count` cells of the model's grid, 12 km and more north-east of the
    /// queries: the model walks rings of cells only when more cells hold places than its box
    /// spans (otherwise it looks at every filled cell).
    static func fillFarCells(_ f: AppFixture, _ count: Int, devicesFrom n: Int) async throws {
        for i in 0..<count { try await checkIn(f, n + i, 44.60 + Double(i) * 0.0025, 11.50) }
    }

    static func checkIn(_ f: AppFixture, _ n: Int, _ lat: Double, _ lon: Double, message: String? = nil) async throws {
        let text = message.map { #","message":"\#($0)""# } ?? ""
        let r = try await f.post("/v1/checkins", #"{"device_id":"\#(String(format: "%040x", n))","lat":\#(lat),"lon":\#(lon)\#(text)}"#)
        #expect(r.status == .ok)
    }

    @Test func changesReachTheModelWithinItsPeriod() async throws {
        try await AppFixture.run { f in
            var random = SeededRandom(seed: 7)
            var spots: [(Double, Double)] = []
            for n in 0..<60 {
                let spot = (44.4920 + random.unit() * 0.0040, 11.3410 + random.unit() * 0.0050)
                spots.append(spot)
                try await Self.checkIn(f, n, spot.0, spot.1, message: n % 5 == 0 ? "hello \(n)" : nil)
            }
            try await Self.fillFarCells(f, 120, devicesFrom: 1000)
            // As the original shows places (k = 1), and with groups under 3 merged per cell:
            // the model keeps published entries, so both kinds of entry must stay right.
            let services = f.deps.groups
            let pairs = [1, 3].map { k in
                let privacy = PrivacyPolicy(k: k, noiseKey: 0x5EED)
                return (model: GroupService(places: services.places, messages: services.messages, privacy: privacy, clock: f.clock, cachePeriod: Self.period),
                        direct: GroupService(places: services.places, messages: services.messages, privacy: privacy, clock: f.clock))
            }
            try await Self.expectSame(pairs, "first load", big: false)

            // Moves (~100 m), arrivals beside others (places growing past k), check-outs that
            // empty places, new messages.
            for n in 0..<15 { try await Self.checkIn(f, n, spots[n].0 + 0.0009, spots[n].1) }
            for n in 60..<75 { try await Self.checkIn(f, n, spots[n - 40].0, spots[n - 40].1, message: n % 3 == 0 ? "new \(n)" : nil) }
            for n in 75..<90 { try await Self.checkIn(f, n, spots[50 + n % 5].0, spots[50 + n % 5].1, message: n % 4 == 0 ? "big \(n)" : nil) }
            for n in 40..<50 {
                let r = try await f.client.execute(uri: "/v1/devices/\(String(format: "%040x", n))", method: .delete)
                #expect(r.status == .noContent || r.status == .ok)
            }
            // The sweeper deletes the emptied places without messages at once, before the
            // model has looked: they must leave it all the same.
            let gone = try await f.deps.presence.retire(at: Date(), messageRetention: 10 * 365 * 86_400, budgetWindow: 600)
            #expect(gone >= 5)
            try await Self.expectSame(pairs, "after moves, arrivals, check-outs and the sweep")

            // Messages hidden and deleted: their places' rows do not change, only the messages'.
            let hidden = try await f.db.query("UPDATE message SET hidden = true WHERE id IN (SELECT id FROM message ORDER BY id LIMIT 3) RETURNING id", logger: TestCluster.logger).collect()
            #expect(hidden.count == 3)
            let deleted = try await f.db.query("DELETE FROM message WHERE id IN (SELECT id FROM message WHERE NOT hidden ORDER BY id DESC LIMIT 2) RETURNING id", logger: TestCluster.logger).collect()
            #expect(deleted.count == 2)
            try await Self.expectSame(pairs, "after hiding and deleting messages")
        }
    }

    /// A transaction that began first and commits last: a cursor on the newest change seen
    /// would step over its rows; the horizon (the oldest transaction still running) does not.
    @Test func aTransactionCommittedLateIsNotSkipped() async throws {
        try await AppFixture.run { f in
            try await Self.checkIn(f, 1, 44.4938, 11.3430)
            let direct = f.deps.groups
            let model = GroupService(places: direct.places, messages: direct.messages, privacy: direct.privacy, clock: f.clock, cachePeriod: Self.period)
            var query = GroupQuery(centre: Coordinate(latitude: 44.4938, longitude: 11.3430))
            query.radius = 500
            query.limit = 1000
            let people = { (s: GroupService) in try await s.groups(for: query).map(\.people).sorted() }
            #expect(try await people(model) == [1])

            try await f.db.withConnection { late in
                let logger = TestCluster.logger
                _ = try await late.query("BEGIN", logger: logger).collect()
                // A second person joins the first one's place, not yet committed.
                _ = try await late.query("""
                    SELECT folla_check_in(decode(repeat('ab', 32), 'hex'), 44.49381, 11.34301, NULL, NULL, NULL, now(), 10, 350)
                    """, logger: logger).collect()
                // Meanwhile someone else arrives 200 m away, committed at once.
                try await Self.checkIn(f, 2, 44.4956, 11.3430)
                try await Task.sleep(for: Self.period + .milliseconds(30))
                #expect(try await people(model) == [1, 1], "the committed arrival is seen, the open transaction not")
                _ = try await late.query("COMMIT", logger: logger).collect()
            }
            try await Task.sleep(for: Self.period + .milliseconds(30))
            #expect(try await people(direct) == [1, 2])
            #expect(try await people(model) == [1, 2], "the late commit must reach the model")
        }
    }

    /// The model walks its grid ring by ring and stops once `limit` entries are nearer than
    /// anything beyond: the nearest place can lie in the next cell while a farther one shares
    /// the centre's cell. (Grid cells are 0.002°: about 222 m × 159 m here; the centre is in
    /// the middle of one, 80 m from its east side.)
    @Test func theNearestCanLieInTheNextCell() async throws {
        try await AppFixture.run { f in
            try await Self.checkIn(f, 1, 44.4921, 11.3422)   // same cell, ~120 m south-west
            try await Self.checkIn(f, 2, 44.4930, 11.34403)  // next cell east, ~82 m
            try await Self.fillFarCells(f, 40, devicesFrom: 1000)
            let direct = f.deps.groups
            let privacy = PrivacyPolicy(k: 1, noiseKey: 0x5EED)
            let model = GroupService(places: direct.places, messages: direct.messages, privacy: privacy, clock: f.clock, cachePeriod: Self.period)
            let plain = GroupService(places: direct.places, messages: direct.messages, privacy: privacy, clock: f.clock)
            var query = GroupQuery(centre: Coordinate(latitude: 44.4930, longitude: 11.3430))
            query.radius = 200
            query.limit = 1
            try await Task.sleep(for: Self.period + .milliseconds(30))
            let expected = try await plain.groups(for: query)
            #expect(expected.count == 1 && abs(expected[0].distance - 82) < 10, "\(expected.map(\.distance))")
            #expect(try await model.groups(for: query).map(Self.show) == expected.map(Self.show))
        }
    }

    /// A cell's shown activity turns when the clock enters a quarter hour, a public place's
    /// when it enters a minute (`PrivacyPolicy.shownActivity`), with no change in the
    /// database: the model stamps its entries again then, and answers what a direct read does.
    @Test func entriesTurnTheirActivityInTheModel() async throws {
        try await AppFixture.run(k: 3) { f in
            try await f.crowd(centre, people: 1, startingAt: 1)
            try await f.crowd(at(90, 200), people: 3, startingAt: 10)  // a public place: its minute turns too
            let direct = f.deps.groups
            let model = GroupService(places: direct.places, messages: direct.messages, privacy: direct.privacy, clock: f.clock, cachePeriod: Self.period)
            var query = GroupQuery(centre: centre)
            query.radius = 500
            let first = try await model.groups(for: query).map(Self.show)
            let read = try await direct.groups(for: query).map(Self.show)
            #expect(first.count == 2 && first == read)
            f.clock.advance(by: PrivacyPolicy.activityQuarter)
            try await Task.sleep(for: Self.period + .milliseconds(30))
            let turned = try await direct.groups(for: query).map(Self.show)
            #expect(turned != first)
            #expect(try await model.groups(for: query).map(Self.show) == turned)
        }
    }
}
