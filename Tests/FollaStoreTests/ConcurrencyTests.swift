import FollaCore
import FollaGeo
import FollaStore
import FollaTestSupport
import Foundation
import Testing

@Suite struct ConcurrencyTests {
    /// 200 phones founding within 3 m of one spot at the same instant: one place, 200 people.
    @Test func simultaneousFoundersMakeOnePlace() async throws {
        try await PresenceFixture.run(maxConnections: 64) { f in
            try await withThrowingTaskGroup(of: CheckInResult.self) { group in
                for i in 0..<200 {
                    group.addTask {
                        try await f.checkIn(udid(i), offset(bologna, bearing: Double(i) * 37, metres: Double(i % 4) * 0.75))
                    }
                }
                var founded = 0
                for try await r in group where r.outcome == .founded { founded += 1 }
                #expect(founded == 1)
            }
            let live = try await f.livePlaces()
            #expect(live.count == 1)
            #expect(live.values.first == 200)
            #expect(try await f.count("SELECT count(*) FROM place") == 1)
            #expect(try await f.store.invariantViolations().isEmpty)
        }
    }

    /// One phone sending the same ping from 50 requests at once is one person.
    @Test func samePingFiftyTimesCountsOnce() async throws {
        try await PresenceFixture.run(maxConnections: 50) { f in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<50 {
                    group.addTask { _ = try await f.checkIn(udid(7), bologna, age: 30, sex: .male) }
                }
                try await group.waitForAll()
            }
            #expect(try await f.livePlaces().values.sorted() == [1])
            #expect(try await f.count("SELECT count(*) FROM device") == 1)
            #expect(try await f.count("SELECT reporters FROM place") == 1)
            #expect(try await f.store.invariantViolations().isEmpty)
        }
    }

    /// Many phones hopping between nearby spots concurrently, with sweeps and check-outs
    /// racing them: the counters still equal the live devices afterwards.
    @Test func concurrentMovesKeepTheInvariant() async throws {
        try await PresenceFixture.run(maxConnections: 40) { f in
            let spots = (0..<6).map { offset(bologna, bearing: Double($0) * 60, metres: 25) } + [bologna]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<40 {
                    group.addTask {
                        var rng = SeededRandom(seed: UInt64(worker) &+ 0x9E37_79B9_7F4A_7C15)
                        for step in 0..<25 {
                            let device = udid(Int(rng.next() % 60))
                            let spot = spots[Int(rng.next() % UInt64(spots.count))]
                            let jitter = offset(spot, bearing: Double(rng.next() % 360), metres: Double(rng.next() % 40) / 10)
                            let age = rng.next() % 3 == 0 ? Int(rng.next() % 60) + 15 : nil
                            let sex: Sex? = age == nil ? nil : (rng.next() % 2 == 0 ? .male : .female)
                            // Time runs forward for everyone, so speeds stay plausible.
                            let time = Double(step * 60 + worker)
                            switch rng.next() % 20 {
                            case 0: try await f.store.checkOut(try DeviceID(device), at: PresenceFixture.start.addingTimeInterval(time))
                            case 1: try await f.store.expire(at: PresenceFixture.start.addingTimeInterval(time))
                            default: _ = try await f.checkIn(device, jitter, age: age, sex: sex, time: time)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await f.store.invariantViolations().isEmpty)
            #expect(try await f.count("SELECT count(*) FROM place WHERE people > 0") > 0)
            let liveDevices = try await f.count("SELECT count(*) FROM device WHERE place_id IS NOT NULL")
            #expect(try await f.count("SELECT coalesce(sum(people), 0)::int FROM place") == liveDevices)
        }
    }
}
