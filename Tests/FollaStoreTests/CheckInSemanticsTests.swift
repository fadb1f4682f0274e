import FollaCore
import FollaGeo
import FollaStore
import FollaTestSupport
import Foundation
import PostgresNIO
import Testing

@Suite struct CheckInSemanticsTests {
    /// 9.9 m from the anchor joins, 10.1 m founds, measured geodesically, at Bologna and
    /// near both poles (where a degree of longitude is a few metres).
    @Test(arguments: [bologna, Coordinate(latitude: 89.99, longitude: 45), Coordinate(latitude: -89.95, longitude: -120)])
    func joinRadiusBoundaryIsGeodesic(anchor: Coordinate) async throws {
        try await PresenceFixture.run { f in
            let founder = try await f.checkIn(udid(1), anchor)
            #expect(founder.outcome == .founded)
            for bearing in [0.0, 90, 200] {
                let inside = try await f.checkIn(udid(Int(bearing) + 10), offset(anchor, bearing: bearing, metres: 9.9))
                #expect(inside.outcome == .joined)
                #expect(inside.place.id == founder.place.id)
                #expect(abs(inside.distanceToAnchor - 9.9) < 0.001)
                let outside = try await f.checkIn(udid(Int(bearing) + 1000), offset(anchor, bearing: bearing, metres: 10.1))
                #expect(outside.place.id != founder.place.id, "10.1 m at bearing \(bearing) joined the place")
            }
            #expect(try await f.livePlaces()[founder.place.id] == 4)
            #expect(try await f.store.invariantViolations().isEmpty)
        }
    }

    @Test func stayMoveAndFoundFollowTheDevice() async throws {
        try await PresenceFixture.run { f in
            let a = try await f.checkIn(udid(1), bologna, time: 0)
            #expect(a.outcome == .founded && a.place.stats.people == 1)
            // Drifting within 10 m of the anchor: stays, even 9.5 m away.
            let stay = try await f.checkIn(udid(1), offset(bologna, bearing: 45, metres: 9.5), time: 10)
            #expect(stay.outcome == .stayed && stay.place.id == a.place.id && stay.place.stats.people == 1)
            // 50 m away, nothing there: founds a new place and leaves the old one empty.
            let far = offset(bologna, bearing: 90, metres: 50)
            let moved = try await f.checkIn(udid(1), far, time: 20)
            #expect(moved.outcome == .founded && moved.previousPlaceID == a.place.id)
            #expect(try await f.livePlaces() == [moved.place.id: 1])
            // The emptied first place forgot its anchor: another device back at the first
            // spot founds a new place rather than rejoining it.
            #expect(try await f.anchorIsForgotten(a.place.id))
            let back = try await f.checkIn(udid(2), bologna, time: 30)
            #expect(back.outcome == .founded && back.place.id != a.place.id && back.place.stats.people == 1)
            // The first device walks over to it: "moved".
            let rejoin = try await f.checkIn(udid(1), offset(bologna, bearing: 0, metres: 3), time: 60)
            #expect(rejoin.outcome == .moved && rejoin.place.id == back.place.id && rejoin.place.stats.people == 2)
            #expect(rejoin.previousPlaceID == moved.place.id)
            #expect(try await f.livePlaces() == [back.place.id: 2])
        }
    }

    /// The answer's place is the place as the check-in left it, on every path that writes its
    /// counters (SQL/0019 reads it back from the UPDATE itself): a stay that makes the device
    /// count, a move between two places, and, for contrast, a quiet stay that writes nothing.
    @Test func theAnswerShowsThePlaceAsTheCheckInLeftIt() async throws {
        try await PresenceFixture.run { f in
            let twoPings = Establishment(after: 0, pings: 2)
            func ping(_ n: Int, _ at: Coordinate, time: TimeInterval, age: Int? = 30, sex: Sex? = .female) async throws -> CheckInResult {
                let request = CheckInRequest(device: try DeviceID(udid(n)), position: at,
                                             demographics: age.flatMap { a in sex.map { Demographics(age: a, sex: $0) } },
                                             message: nil)
                return try await f.store.checkIn(request, at: PresenceFixture.start.addingTimeInterval(time), establishment: twoPings)
            }
            func row(_ id: Int64) async throws -> [Int] {
                let rows = try await f.client.query(
                    "SELECT counted, reporters, age_sum, male, female FROM place WHERE id = \(id)", logger: TestCluster.logger).collect()
                let (a, b, c, d, e) = try rows[0].decode((Int, Int, Int, Int, Int).self)
                return [a, b, c, d, e]
            }
            func shown(_ r: CheckInResult) -> [Int] {
                [r.place.stats.people, r.place.stats.reporters, r.place.stats.ageSum, r.place.stats.male, r.place.stats.female]
            }
            let first = try await ping(1, bologna, time: 0)
            #expect(first.outcome == .founded && !first.established && shown(first) == [0, 0, 0, 0, 0])
            // The second ping, 3 m off: a stay that makes the device count.
            let counts = try await ping(1, offset(bologna, bearing: 30, metres: 3), time: 10)
            #expect(counts.outcome == .stayed && counts.established && counts.place.id == first.place.id)
            #expect(shown(counts) == [1, 1, 30, 0, 1])
            #expect(try await row(first.place.id) == shown(counts))
            #expect(abs(counts.place.anchor.latitude - first.place.anchor.latitude) < 1e-12)
            #expect(abs(counts.distanceToAnchor - 3) < 0.001)
            // A second device counts 60 m away; the first walks over: a move between two places.
            let far = offset(bologna, bearing: 90, metres: 60)
            _ = try await ping(2, far, time: 20, age: 40, sex: .male)
            let other = try await ping(2, far, time: 30, age: 40, sex: .male)
            let moved = try await ping(1, offset(far, bearing: 0, metres: 2), time: 40)
            #expect(moved.outcome == .moved && moved.place.id == other.place.id && moved.previousPlaceID == first.place.id)
            #expect(shown(moved) == [2, 2, 70, 1, 1])
            #expect(try await row(other.place.id) == shown(moved))
            #expect(abs(moved.distanceToAnchor - 2) < 0.001)
            // A quiet stay writes no counters and still answers the place as it is.
            let quiet = try await ping(1, offset(far, bearing: 0, metres: 1), time: 45)
            #expect(quiet.outcome == .stayed && shown(quiet) == shown(moved))
            #expect(try await f.store.invariantViolations().isEmpty)
        }
    }

    /// A check-in that waited for its device's row while another check-in of the same device
    /// moved it measures the stay from the place the device is in now (SQL/0019 reads the
    /// row and its place in one statement; the place read with the row is the old one).
    @Test func aCheckInThatWaitedForItsDeviceStaysWhereTheOtherLeftIt() async throws {
        try await PresenceFixture.run { f in
            let logger = TestCluster.logger
            let far = offset(bologna, bearing: 90, metres: 60)
            func sql(_ device: String, _ at: Coordinate, _ seconds: Int) -> PostgresQuery {
                PresenceFixture.checkInCall(device, at, seconds: seconds)
            }
            let there = try await f.client.withConnection { first in
                let (_, old) = try await PresenceFixture.outcome(first, sql("ab", bologna, 0))
                let (_, there) = try await PresenceFixture.outcome(first, sql("cd", far, 0))
                // The device walks to the other place, and its commit waits...
                _ = try await first.query("BEGIN", logger: logger).collect()
                let (moved, to) = try await PresenceFixture.outcome(first, sql("ab", offset(far, bearing: 0, metres: 1), 20))
                #expect(moved == "moved" && to == there && to != old)
                // ...while its next ping, 2 m from there, waits for the device's row.
                async let next = f.client.withConnection { second in try await PresenceFixture.outcome(second, sql("ab", offset(far, bearing: 0, metres: 2), 30)) }
                // Committed only once the second ping is seen waiting for a lock (else the test
                // would pass without the race it is about).
                let waiting = try await f.checkInsWaitingForALock()
                _ = try await first.query("COMMIT", logger: logger).collect()
                #expect(waiting == 1, "the second ping never waited for the device's row")
                let (outcome, place) = try await next
                #expect(outcome == "stayed" && place == there, "\(outcome) at \(place)")
                return there
            }
            #expect(try await f.livePlaces() == [there: 2])
            #expect(try await f.store.invariantViolations().isEmpty)
        }
    }

    /// Two first pings of one new id at once (SQL/0032 writes a new device's row at the end
    /// of its ping, not at its start): the second waits for the first's commit, then finds
    /// the device as an ordinary ping does. One device, one person, two pings; not a unique
    /// violation, and not a second person.
    @Test func aSecondFirstPingWaitsForTheFirstAndFindsItsDevice() async throws {
        try await PresenceFixture.run { f in
            let logger = TestCluster.logger
            func sql(_ at: Coordinate, _ seconds: Int) -> PostgresQuery {
                PresenceFixture.checkInCall("ef", at, age: 30, sex: 2, seconds: seconds)
            }
            try await f.client.withConnection { first in
                _ = try await first.query("BEGIN", logger: logger).collect()
                let (founded, place) = try await PresenceFixture.outcome(first, sql(bologna, 0))
                #expect(founded == "founded")
                async let next = f.client.withConnection { second in try await PresenceFixture.outcome(second, sql(offset(bologna, bearing: 0, metres: 2), 5)) }
                // Committed only once the second ping is seen waiting for a lock.
                let waiting = try await f.checkInsWaitingForALock()
                _ = try await first.query("COMMIT", logger: logger).collect()
                #expect(waiting == 1, "the second first ping never waited for the first")
                let (outcome, to) = try await next
                #expect(outcome == "stayed" && to == place, "\(outcome) at \(to)")
            }
            #expect(try await f.count("SELECT count(*) FROM device") == 1)
            #expect(try await f.count("SELECT pings FROM device") == 2)
            #expect(try await f.livePlaces().values.sorted() == [1])
            #expect(try await f.count("SELECT reporters FROM place WHERE people > 0") == 1)
            #expect(try await f.store.invariantViolations().isEmpty)
        }
    }

    /// A place emptied by its last person while a first ping that chose it waits for its
    /// row: the ping joins it and gives it back an anchor, its own, as a place must have one
    /// while anyone is in it (the arrival's own update, SQL/0035; the general one did the
    /// same). Without, the join breaks the place's row check and the ping fails.
    @Test func aPlaceEmptiedWhileAFirstPingWaitsForItTakesThePingsAnchor() async throws {
        try await PresenceFixture.run { f in
            let logger = TestCluster.logger
            // Devices that count from their second ping on: a first ping joins without counting.
            func sql(_ device: String, _ at: Coordinate) -> PostgresQuery {
                PresenceFixture.checkInCall(device, at, establishPings: 2)
            }
            try await f.client.withConnection { first in
                let (founded, place) = try await PresenceFixture.outcome(first, sql("ab", bologna))
                #expect(founded == "founded")
                // The place's row is held while a newcomer 2 m away chooses it and waits for it...
                _ = try await first.query("BEGIN", logger: logger).collect()
                _ = try await first.query(PostgresQuery(unsafeSQL: "SELECT 1 FROM place WHERE id = \(place) FOR UPDATE"), logger: logger).collect()
                async let next = f.client.withConnection { second in try await PresenceFixture.outcome(second, sql("cd", offset(bologna, bearing: 0, metres: 2))) }
                let waiting = try await f.checkInsWaitingForALock()
                // ...and its founder leaves meanwhile: the place empties and forgets its anchor.
                _ = try await first.query(PostgresQuery(unsafeSQL: "SELECT folla_check_out(decode(repeat('ab', 32), 'hex'), now())"),
                                          logger: logger).collect()
                _ = try await first.query("COMMIT", logger: logger).collect()
                #expect(waiting == 1, "the newcomer never waited for the place's row")
                let (outcome, to) = try await next
                #expect(outcome == "joined" && to == place, "\(outcome) at \(to)")
                #expect(try await f.count("SELECT count(*) FROM place WHERE id = \(place) AND anchor IS NOT NULL") == 1)
            }
            #expect(try await f.livePlaces().values.sorted() == [1])
            #expect(try await f.store.invariantViolations().isEmpty)
        }
    }

    /// A device row written meanwhile without the key's lock (the old body, while SQL/0032
    /// commits): the first ping that meets it at its insert fails with a serialization
    /// failure, which the batch's transaction runs again, not a unique violation (a 500).
    @Test func aFirstPingMeetingARowWrittenWithoutTheLockAsksToRunAgain() async throws {
        try await PresenceFixture.run { f in
            let logger = TestCluster.logger
            let key = "decode(repeat('7a', 32), 'hex')"
            let ping = PostgresQuery(unsafeSQL: """
                SELECT outcome FROM folla_check_in(\(key), \(bologna.latitude), \(bologna.longitude),
                                                   NULL, NULL, NULL, now(), 10, 350)
                """)
            try await f.client.withConnection { first in
                _ = try await first.query("BEGIN", logger: logger).collect()
                _ = try await first.query(PostgresQuery(unsafeSQL: """
                    INSERT INTO device (device_key, position, last_seen, first_seen)
                    VALUES (\(key), ST_MakePoint(\(bologna.longitude), \(bologna.latitude))::geography, now(), now())
                    """), logger: logger).collect()
                async let second: PSQLError? = f.client.withConnection { second in
                    do { _ = try await second.query(ping, logger: logger).collect(); return nil } catch let e as PSQLError { return e }
                }
                let waiting = try await f.checkInsWaitingForALock()
                _ = try await first.query("COMMIT", logger: logger).collect()
                #expect(waiting == 1, "the first ping never met the row")
                let error = try await second
                #expect(error?.serverInfo?[.sqlState] == "40001", "\(String(describing: error?.serverInfo?[.message]))")
            }
            // Run again, it finds the device.
            let outcome = try await f.client.query(ping, logger: logger).collect()[0].decode(String.self)
            #expect(outcome == "joined" || outcome == "founded", "\(outcome)")
            #expect(try await f.count("SELECT count(*) FROM device") == 1)
        }
    }

    /// Messages live for the message retention, then go; an emptied place nothing points to
    /// any more goes with them (nothing is kept forever).
    @Test func retentionDeletesOldMessagesAndForgottenPlaces() async throws {
        try await PresenceFixture.run { f in
            let r = try await f.checkIn(udid(1), bologna, message: "ciao")
            #expect(try await f.store.checkOut(try DeviceID(udid(1)), at: PresenceFixture.start.addingTimeInterval(5)))
            let retention = f.store.policy.messageRetention
            // Before the retention: the message stays, and so does its (emptied) place.
            #expect(try await f.store.retire(at: PresenceFixture.start.addingTimeInterval(retention - 60), messageRetention: retention,
                                             budgetWindow: 600) == 0)
            #expect(try await f.count("SELECT count(*)::int FROM message") == 1)
            // After it: both go.
            #expect(try await f.store.retire(at: PresenceFixture.start.addingTimeInterval(retention + 60), messageRetention: retention,
                                             budgetWindow: 600) == 2)
            #expect(try await f.count("SELECT count(*)::int FROM message") == 0)
            #expect(try await f.count("SELECT count(*)::int FROM place WHERE id = \(r.place.id)") == 0)
        }
    }

    @Test func nearestPlaceWinsWhenTwoAreInRange() async throws {
        try await PresenceFixture.run { f in
            let west = try await f.checkIn(udid(1), bologna)
            let east = try await f.checkIn(udid(2), offset(bologna, bearing: 90, metres: 15))
            #expect(east.outcome == .founded)
            let between = try await f.checkIn(udid(3), offset(bologna, bearing: 90, metres: 8))
            #expect(between.place.id == east.place.id)  // 7 m to east, 8 m to west
            let nearWest = try await f.checkIn(udid(4), offset(bologna, bearing: 90, metres: 7))
            #expect(nearWest.place.id == west.place.id)
        }
    }

    @Test func demographicsCountOnlyWhenBothGivenAndAreReplaced() async throws {
        try await PresenceFixture.run { f in
            _ = try await f.checkIn(udid(1), bologna, age: 30, sex: .male)
            _ = try await f.checkIn(udid(2), bologna, age: 20, sex: nil)  // age alone: not counted
            var r = try await f.checkIn(udid(3), bologna, age: 40, sex: .female)
            #expect(r.place.stats == PlaceStats(people: 3, reporters: 2, ageSum: 70, male: 1, female: 1))
            #expect(r.place.stats.averageAge == 35)
            // Re-sending different data replaces the contribution instead of adding one.
            r = try await f.checkIn(udid(1), bologna, age: 50, sex: .female, time: 5)
            #expect(r.outcome == .stayed)
            #expect(r.place.stats == PlaceStats(people: 3, reporters: 2, ageSum: 90, male: 0, female: 2))
            // A ping without demographics keeps the last ones.
            r = try await f.checkIn(udid(1), bologna, time: 10)
            #expect(r.place.stats == PlaceStats(people: 3, reporters: 2, ageSum: 90, male: 0, female: 2))
            // Leaving subtracts exactly what the device contributed.
            r = try await f.checkIn(udid(3), offset(bologna, bearing: 180, metres: 40), time: 20)
            #expect(r.place.stats == PlaceStats(people: 1, reporters: 1, ageSum: 40, male: 0, female: 1))
            #expect(try await f.store.invariantViolations().isEmpty)
        }
    }

    @Test func messageGoesToTheDevicesPlace() async throws {
        try await PresenceFixture.run { f in
            let r = try await f.checkIn(udid(1), bologna, message: "  ciao a tutti  ")
            let id = try #require(r.messageID)
            let row = try await f.client.query("SELECT place_id, body FROM message WHERE id = \(id)", logger: TestCluster.logger)
                .collect()[0].decode((Int64, String).self)
            #expect(row.0 == r.place.id && row.1 == "ciao a tutti")
        }
    }

    @Test func teleportIsRefusedAndChangesNothing() async throws {
        try await PresenceFixture.run { f in
            let a = try await f.checkIn(udid(1), bologna, age: 25, sex: .male, time: 0)
            let before = try await f.client.query(
                "SELECT ST_AsText(position), last_seen, place_id FROM device", logger: TestCluster.logger
            ).collect()[0].decode((String, Date, Int64).self)
            // Bologna → Fano (152 km) in 60 s is 2.5 km/s.
            await #expect(throws: CheckInRefusal.self) {
                _ = try await f.checkIn(udid(1), Coordinate(latitude: 43.8436, longitude: 13.0175), message: "hi", time: 60)
            }
            let after = try await f.client.query(
                "SELECT ST_AsText(position), last_seen, place_id FROM device", logger: TestCluster.logger
            ).collect()[0].decode((String, Date, Int64).self)
            #expect(before == after)
            #expect(try await f.count("SELECT count(*) FROM place") == 1)
            #expect(try await f.count("SELECT count(*) FROM message") == 0)
            #expect(try await f.livePlaces() == [a.place.id: 1])
            // The same trip at train speed (152 km in an hour: 42 m/s) is fine.
            let train = try await f.checkIn(udid(1), Coordinate(latitude: 43.8436, longitude: 13.0175), time: 3600)
            #expect(train.outcome == .founded)
        }
    }

    @Test func checkOutErasesTheDeviceAndItsContribution() async throws {
        try await PresenceFixture.run { f in
            _ = try await f.checkIn(udid(1), bologna, age: 30, sex: .male)
            let r = try await f.checkIn(udid(2), bologna)
            #expect(try await f.store.checkOut(try DeviceID(udid(1)), at: PresenceFixture.start))
            #expect(try await f.livePlaces() == [r.place.id: 1])
            #expect(try await f.count("SELECT count(*) FROM device") == 1)
            #expect(try await f.store.checkOut(try DeviceID(udid(1)), at: PresenceFixture.start) == false)
            #expect(try await f.store.invariantViolations().isEmpty)
        }
    }

    @Test func expiryFollowsTheInjectedClock() async throws {
        try await PresenceFixture.run { f in
            let ttl = f.store.policy.presenceTTL
            let r = try await f.checkIn(udid(1), bologna, age: 30, sex: .female, time: 0)
            _ = try await f.checkIn(udid(2), bologna, time: ttl / 2)
            // Just before the TTL nobody expires.
            #expect(try await f.store.expire(at: PresenceFixture.start.addingTimeInterval(ttl - 1)) == 0)
            // Past device 1's TTL only device 1 goes, with its demographics.
            #expect(try await f.store.expire(at: PresenceFixture.start.addingTimeInterval(ttl + 1)) == 1)
            #expect(try await f.livePlaces() == [r.place.id: 1])
            #expect(try await f.store.invariantViolations().isEmpty)
            // Device 2 goes silent too: the place disappears from the live set.
            #expect(try await f.store.expire(at: PresenceFixture.start.addingTimeInterval(2 * ttl)) == 1)
            #expect(try await f.livePlaces().isEmpty)
            // The emptied place forgot its anchor: pinging again founds a new place there.
            #expect(try await f.anchorIsForgotten(r.place.id))
            let again = try await f.checkIn(udid(1), bologna, time: 3 * ttl)
            #expect(again.outcome == .founded && again.place.id != r.place.id && again.place.stats.people == 1)
            // Retention: a device gone longer than the retention period is erased.
            let later = PresenceFixture.start.addingTimeInterval(3 * ttl + f.store.policy.retention + 1)
            _ = try await f.store.expire(at: later)
            #expect(try await f.store.forget(at: later) == 2)
            #expect(try await f.count("SELECT count(*) FROM device") == 0)
        }
    }

    @Test func expiryWorksInBatches() async throws {
        try await PresenceFixture.run { f in
            for i in 0..<25 { _ = try await f.checkIn(udid(i), offset(bologna, bearing: Double(i * 14), metres: Double(i))) }
            let later = PresenceFixture.start.addingTimeInterval(f.store.policy.presenceTTL + 1)
            #expect(try await f.store.expire(at: later, batchSize: 7) == 25)
            #expect(try await f.livePlaces().isEmpty)
            #expect(try await f.store.invariantViolations().isEmpty)
        }
    }

    /// The raw device id never reaches the database: a full dump does not contain it.
    @Test func rawDeviceIDIsNeverStored() async throws {
        try await PresenceFixture.run { f in
            let raw = "F00DFACE0123456789ABCDEF0123456789ABCDEF"
            _ = try await f.checkIn(raw, bologna, age: 33, sex: .male, message: "hello")
            let pg = try await TestCluster.postgres()
            let dump = try await runPgDump(pg: pg, database: f.location.databaseName)
            #expect(dump.contains("hello"))  // the dump is real and has our rows
            #expect(!dump.lowercased().contains(raw.lowercased()))
            #expect(!dump.lowercased().contains(String(raw.lowercased().prefix(16))))
        }
    }
}

func runPgDump(pg: EmbeddedPostgres, database: String) async throws -> String {
    let bin = pg.configuration.binDirectory + "/pg_dump"
    let args = ["-h", pg.dataDirectory, "-U", EmbeddedPostgres.superuser, "--data-only", "--inserts", database]
    let r = geteuid() == 0
        ? try await ExternalProcess.run("/usr/sbin/runuser", ["-u", pg.configuration.systemUser, "--", bin] + args)
        : try await ExternalProcess.run(bin, args)
    #expect(r.status == 0, "pg_dump: \(r.errors)")
    return r.output
}
