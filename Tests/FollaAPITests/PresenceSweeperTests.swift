import FollaAPI
import FollaCore
import FollaTestSupport
import Foundation
import PostgresNIO
import Testing

/// Presence expires at whole minutes, so that when a lone person drops out of their cell's
/// count says no more than the minute of their last ping. Before (an outside probe, session
/// 23), the first sweep after the TTL ran out expired them: their last ping to 1–2 s.
@Suite struct PresenceSweeperTests {
    @Test func presenceExpiresAtWholeMinutes() async throws {
        try await AppFixture.run { f in
            let sweeper = PresenceSweeper(presence: f.deps.presence, database: f.deps.database, clock: f.clock,
                                          interval: .seconds(5), logger: TestCluster.logger)
            // The last ping 10 s past a whole minute.
            let second = f.clock.now().timeIntervalSince1970.truncatingRemainder(dividingBy: 60)
            f.clock.advance(by: 60 - second + 10)
            _ = try await f.checkIn(dev(1), centre)
            func present() async throws -> Int {
                try await f.db.query("SELECT coalesce(sum(people), 0)::int FROM place", logger: TestCluster.logger)
                    .collect()[0].decode(Int.self)
            }
            // 5 s past the TTL: still there until the next whole minute.
            f.clock.advance(by: f.deps.presence.policy.presenceTTL + 5)
            try await sweeper.sweep()
            #expect(try await present() == 1, "expired at the first sweep past the TTL")
            f.clock.advance(by: 60)
            try await sweeper.sweep()
            #expect(try await present() == 0)
        }
    }
}
