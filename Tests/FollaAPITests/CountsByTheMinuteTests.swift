import FollaAPI
import FollaCore
import FollaGeo
import FollaTestSupport
import Foundation
import Synchronization
import Testing

/// Counts move only at the first sweep of a minute (`SQL/0029`), whatever moved them and
/// whenever in the minute: a lone person's establishing ping, a move between cells and a
/// check-out. Before (an outside probe, session 25, with no device of its own polling a
/// cell every 0.25 s), each showed at its own moment: the establishing ping timed to
/// 0.15–0.21 s in 16 of 16 trials, the check-out to 0.27 s in 8 of 8.
@Suite struct CountsByTheMinuteTests {
    @Test func countsMoveOnlyAtAMinutesFirstSweep() async throws {
        try await AppFixture.run(k: 3) { f in
            let sweeper = PresenceSweeper(presence: f.deps.presence, database: f.deps.database, clock: f.clock,
                                          interval: .seconds(5), logger: TestCluster.logger)
            let home = at(0, 30), away = at(90, 400)
            /// The people every entry within 60 m of `spot` shows (a lone person: their cell's).
            func people(_ spot: Coordinate) async throws -> Int {
                let groups = try f.json(try await f.get("/v1/groups?lat=\(spot.latitude)&lon=\(spot.longitude)&radius=60"))["groups"]
                return (groups as? [[String: Any]] ?? []).reduce(0) { $0 + ($1["people"] as? Int ?? 0) }
            }
            func ping(_ c: Coordinate) async throws {
                let r = try await f.post("/v1/checkins", #"{"device_id":"\#(dev(1))","lat":\#(c.latitude),"lon":\#(c.longitude)}"#)
                #expect(r.status == .ok)
            }
            /// To `second` seconds past the next whole minute.
            func toNextMinute(plus second: Double) {
                let now = f.clock.now().timeIntervalSince1970
                f.clock.advance(by: (now / 60).rounded(.down) * 60 + 60 + second - now)
            }
            // The first pings, then the one that establishes (after the policy's wait), 11 s
            // into a minute whose first sweep has run.
            let rule = f.deps.privacy.establishment
            for _ in 0..<(rule.pings - 1) { try await ping(home) }
            f.clock.advance(by: rule.after + 1)
            toNextMinute(plus: 10)
            try await sweeper.sweep()
            f.clock.advance(by: 1)
            try await ping(home)
            #expect(try await people(home) == 0, "the establishing ping showed at once")
            // Later sweeps of the same minute show nothing new.
            f.clock.advance(by: 20)
            try await sweeper.sweep()
            #expect(try await people(home) == 0, "a second sweep of the minute showed its counts")
            toNextMinute(plus: 1)
            try await sweeper.sweep()
            #expect(try await people(home) == 1)

            // A move to another cell: both counts stay until the next minute's first sweep.
            f.clock.advance(by: 10)
            try await ping(away)
            #expect(try await people(home) == 1, "the move showed at once where it left")
            #expect(try await people(away) == 0, "the move showed at once where it arrived")
            toNextMinute(plus: 2)
            try await sweeper.sweep()
            #expect(try await people(home) == 0)
            #expect(try await people(away) == 1)

            // A check-out.
            f.clock.advance(by: 15)
            #expect(try await f.client.execute(uri: "/v1/devices/\(dev(1))", method: .delete).status == .noContent)
            #expect(try await people(away) == 1, "the check-out showed at once")
            toNextMinute(plus: 3)
            try await sweeper.sweep()
            #expect(try await people(away) == 0)
        }
    }

    /// The minute's showing waits for no lock: a place a transaction holds is skipped and
    /// shown on a later pass or minute, the others at once. In one id-ordered statement it
    /// waited, and lost deadlocks against check-in batches that lock places in their pings'
    /// order (an outside probe: three in a row under 48 writers; counts 10-15 s late).
    @Test(.timeLimit(.minutes(3))) func theMinutesShowingWaitsForNoLock() async throws {
        try await AppFixture.run(k: 3) { f in
            guard let scene = try await HeldScene(f) else { return }
            defer { scene.holder.cancel() }
            let (held, free, shown) = (scene.held, scene.free, scene.shown)
            let start = ContinuousClock.now
            let minute = f.clock.now().floored(toMultipleOf: 60)
            #expect(try await f.deps.presence.showCounts(minute: minute, bucket: 0) == 1)
            // (Well under the 90 s the place is held: the whole suite on two cores can make the
            // bounded passes themselves take seconds.)
            #expect(ContinuousClock.now - start < .seconds(45), "it waited for the held place")
            #expect(try await shown(free) == 2)
            #expect(try await shown(held) == 0)
            // Released, the held place shows at the next minute's showing.
            await scene.release()
            #expect(try await f.deps.presence.showCounts(minute: minute.addingTimeInterval(60), bucket: 0) == 1)
            #expect(try await shown(held) == 2)
        }
    }

    /// The minute's showing shows what was due when it claimed the minute, nothing that
    /// changes during its passes (up to a second, while a held place waits): taking whatever
    /// was due at each pass, every change in that second showed within tens of milliseconds
    /// (an outside probe, session 27: a join shown 28-71 ms after its ping, 4 of 4).
    @Test(.timeLimit(.minutes(3))) func whatChangesDuringTheShowingWaitsForTheNextMinute() async throws {
        try await AppFixture.run(k: 3) { f in
            // The held place keeps the showing's passes going for their whole second.
            guard let scene = try await HeldScene(f) else { return }
            defer { scene.holder.cancel() }
            let (free, shown) = (scene.free, scene.shown)
            let minute = f.clock.now().floored(toMultipleOf: 60)
            let finished = Mutex(false)
            let showing = Task {
                defer { finished.withLock { $0 = true } }
                return try await f.deps.presence.showCounts(minute: minute, bucket: 0)
            }
            let shownOnce = ContinuousClock.now + .seconds(60)
            while try await shown(free) != 2 && ContinuousClock.now < shownOnce { try await Task.sleep(for: .milliseconds(5)) }
            // A check-in's change while the showing still waits for the held place.
            _ = try await f.db.query("UPDATE place SET people = 5, counted = 5 WHERE id = \(free)", logger: TestCluster.logger).collect()
            let inTime = !finished.withLock { $0 }
            _ = try await showing.value
            #expect(try await shown(free) == 2, "a change during the minute's showing showed at once")
            // (Else the change came after the passes and tested nothing: said, not failed, as
            // a CI box running every test at once can be that slow.)
            if !inTime { print("whatChangesDuringTheShowingWaitsForTheNextMinute: the showing ended before the change") }
            await scene.release()
            try await f.deps.presence.showCounts(minute: minute.addingTimeInterval(60), bucket: 0)
            #expect(try await shown(free) == 5)
        }
    }

    /// A place's first stats snapshot is taken at a minute's showing, with its counts, not at
    /// whichever sweep comes next: an attacker's k devices founding a place mid-minute read
    /// in its first snapshot whether an established reporter had been within its 10 m for a
    /// few seconds, though the counts never showed them (an outside probe, session 27: 4 of
    /// 5 passes, 0 of 4 controls; the noise is fixed for fixed reporters).
    @Test func aNewPlacesFirstStatsWaitForTheMinutesShowing() async throws {
        try await AppFixture.run(k: 3) { f in
            let sweeper = PresenceSweeper(presence: f.deps.presence, database: f.deps.database, clock: f.clock,
                                          interval: .seconds(5), logger: TestCluster.logger)
            func toNextMinute(plus second: Double) {
                let now = f.clock.now().timeIntervalSince1970
                f.clock.advance(by: (now / 60).rounded(.down) * 60 + 60 + second - now)
            }
            toNextMinute(plus: 5)
            try await sweeper.sweep()
            // Founded after the minute's showing, with three reporters.
            let id = try await f.db.query("""
                INSERT INTO place (anchor, people, counted, reporters, age_sum, male, female, created_at, last_activity)
                VALUES (ST_SetSRID(ST_MakePoint(11.35::float8, 44.49::float8), 4326)::geography, 3, 3, 3, 90, 2, 1, now(), now())
                RETURNING id
                """, logger: TestCluster.logger).collect()[0].decode(Int64.self)
            func snapshotted() async throws -> Bool {
                try await f.db.query("SELECT snap_bucket IS NOT NULL FROM place WHERE id = \(id)", logger: TestCluster.logger)
                    .collect()[0].decode(Bool.self)
            }
            f.clock.advance(by: 10)
            try await sweeper.sweep()
            #expect(try await !snapshotted(), "the next sweep of the minute took its first snapshot")
            toNextMinute(plus: 2)
            try await sweeper.sweep()
            #expect(try await snapshotted())
        }
    }

    /// A public place's `last_activity` shows the pings of the people in it at the minute's
    /// showing (`SQL/0030`). Taken from the live row, it kept the ping of someone who came and
    /// left within a minute: an attacker's k established devices, silent in their own public
    /// place, learnt that an established person had pinged within its 10 m though the counts
    /// never showed them (an outside probe, session 26: 6 of 6 passes, 0 of 6 controls).
    @Test func aPublicPlacesActivityIsOnlyItsPeoplesAtTheMinute() async throws {
        try await AppFixture.run(k: 3) { f in
            let sweeper = PresenceSweeper(presence: f.deps.presence, database: f.deps.database, clock: f.clock,
                                          interval: .seconds(5), logger: TestCluster.logger)
            let home = at(0, 30), away = at(90, 30)
            let attackers = [1, 2, 3], victim = 4
            func ping(_ device: Int, _ c: Coordinate) async throws {
                let r = try await f.post("/v1/checkins", #"{"device_id":"\#(dev(device))","lat":\#(c.latitude),"lon":\#(c.longitude)}"#)
                #expect(r.status == .ok)
            }
            func toNextMinute(plus second: Double) {
                let now = f.clock.now().timeIntervalSince1970
                f.clock.advance(by: (now / 60).rounded(.down) * 60 + 60 + second - now)
            }
            /// The people and `last_activity` of the public place at `home`.
            func shown() async throws -> (people: Int, activity: String?) {
                let groups = try f.json(try await f.get("/v1/groups?lat=\(home.latitude)&lon=\(home.longitude)&radius=15"))["groups"]
                let entry = (groups as? [[String: Any]] ?? []).first { ($0["people"] as? Int ?? 0) >= 3 }
                return (entry?["people"] as? Int ?? 0, entry?["last_activity"] as? String)
            }
            // Everyone established: the attackers at home, the victim away.
            let rule = f.deps.privacy.establishment
            for _ in 0..<(rule.pings - 1) {
                for a in attackers { try await ping(a, home) }
                try await ping(victim, away)
            }
            f.clock.advance(by: rule.after + 1)
            for a in attackers { try await ping(a, home) }
            try await ping(victim, away)
            toNextMinute(plus: 5)
            try await sweeper.sweep()
            let before = try await shown()
            #expect(before.people == 3 && before.activity != nil, "\(before)")
            // Two silent minutes later, the victim comes and goes within a minute.
            toNextMinute(plus: 5)
            try await sweeper.sweep()
            toNextMinute(plus: 5)
            try await sweeper.sweep()
            #expect(try await shown() == before)
            f.clock.advance(by: 10)
            try await ping(victim, home)
            f.clock.advance(by: 20)
            try await ping(victim, away)
            toNextMinute(plus: 5)
            try await sweeper.sweep()
            let after = try await shown()
            #expect(after == before, "a visit the counts never showed moved the activity")
            // One who stays is shown, their ping's minute with them.
            f.clock.advance(by: 10)
            try await ping(victim, home)
            let stayed = f.clock.now().floored(toMultipleOf: 60)
            toNextMinute(plus: 5)
            try await sweeper.sweep()
            let now = try await shown()
            #expect(now.people == 4)
            #expect(now.activity == stayed.iso8601(), "\(now)")
            // A member who pinged in the last minute and again in the seconds before the
            // showing counts with the earlier ping (with its newest ping alone, the value went
            // back, telling when in the minute the ping fell).
            f.clock.advance(by: 20)
            try await ping(victim, home)
            let earlier = f.clock.now().floored(toMultipleOf: 60)
            toNextMinute(plus: 2)
            try await ping(victim, home)
            f.clock.advance(by: 3)
            try await sweeper.sweep()
            let later = try await shown()
            #expect(later.activity == earlier.iso8601(), "\(later)")
        }
    }
}

/// Two places of two people (under k = 3), one of them held by a transaction for up to 90 s,
/// as a check-in batch holds the places it writes: what the minute's showing must not wait for.
struct HeldScene {
    let f: AppFixture
    let held: Int64
    let free: Int64
    let holder: Task<Void, any Error>

    /// Sets the scene; nil (with an issue recorded) when the place could not be locked.
    init?(_ f: AppFixture) async throws {
        func insert(_ lon: Double) async throws -> Int64 {
            try await f.db.query("""
                INSERT INTO place (anchor, people, counted, created_at, last_activity)
                VALUES (ST_SetSRID(ST_MakePoint(\(lon)::float8, 44.49::float8), 4326)::geography, 2, 2, now(), now())
                RETURNING id
                """, logger: TestCluster.logger).collect()[0].decode(Int64.self)
        }
        let held = try await insert(11.34)
        self.f = f
        self.held = held
        self.free = try await insert(11.36)
        let locked = Mutex(false)
        holder = Task {
            try await f.db.withConnection { c in
                _ = try await c.query("BEGIN", logger: TestCluster.logger)
                _ = try await c.query("SELECT 1 FROM place WHERE id = \(held) FOR NO KEY UPDATE", logger: TestCluster.logger).collect()
                locked.withLock { $0 = true }
                try? await Task.sleep(for: .seconds(90))
                _ = try await c.query("ROLLBACK", logger: TestCluster.logger)
            }
        }
        let ready = ContinuousClock.now + .seconds(20)
        while !locked.withLock({ $0 }) && ContinuousClock.now < ready { try await Task.sleep(for: .milliseconds(10)) }
        guard locked.withLock({ $0 }) else {
            holder.cancel()
            Issue.record("the place was not locked: \(await holder.result)")
            return nil
        }
    }

    /// The count readers see of place `id`.
    func shown(_ id: Int64) async throws -> Int {
        try await f.db.query("SELECT shown_counted FROM place WHERE id = \(id)", logger: TestCluster.logger)
            .collect()[0].decode(Int.self)
    }

    /// Ends the holding transaction.
    func release() async {
        holder.cancel()
        _ = try? await holder.value
    }
}
