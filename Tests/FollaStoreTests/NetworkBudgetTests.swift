import FollaCore
@testable import FollaStore
import FollaTestSupport
import Foundation
import PostgresNIO
import Testing

/// A network's budget of new ids turns at fixed times of the clock, not at its first spend.
/// Before (an outside probe, session 23), the window ran from the first new id, so a
/// neighbour on the same /24 who spent the rest and then tried one new id a second read when
/// the window ended, and so when someone's phone first used the app, to 0.08 s.
@Suite struct NetworkBudgetTests {
    @Test func budgetsTurnAtFixedWindowsNotAtTheirFirstSpend() async throws {
        try await PresenceFixture.run { f in
            let network = ByteBuffer(bytes: f.store.keyer.networkKey("203.0.113"))
            let boundary = 1_800_000_000.0  // a multiple of the 600 s window
            func spend(after seconds: Double) async throws -> Bool {
                let at = Date(timeIntervalSince1970: boundary + seconds)
                do {
                    _ = try await f.client.query("SELECT folla_spend(\(network), 'device', 1, 600, \(at))", logger: TestCluster.logger).collect()
                    return true
                } catch let error as PSQLError where error.serverInfo?[.sqlState] == "FL429" {
                    return false
                }
            }
            let taken = [try await spend(after: 100),  // a neighbour's first new id, 100 s into the window
                         try await spend(after: 200),  // the budget (1) is spent
                         try await spend(after: 599),
                         // The window turns at 600 s, whenever it was first spent in (it ran to 700 s before).
                         try await spend(after: 650),
                         try await spend(after: 700)]
            #expect(taken == [true, false, false, true, false])
        }
    }
}
