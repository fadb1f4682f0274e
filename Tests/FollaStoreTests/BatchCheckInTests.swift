import FollaCore
@testable import FollaStore
import FollaTestSupport
import Foundation
import PostgresNIO
import Testing

/// One batch of check-ins in one transaction (`folla_check_in_batch`): a ping refused by a
/// rule that raises is rolled back alone, the others are kept, and each gets its own answer.
@Suite struct BatchCheckInTests {
    @Test func aRefusedPingIsRolledBackAloneAndTheOthersAreKept() async throws {
        try await PresenceFixture.run { f in
            let keyer = f.store.keyer
            let network = keyer.networkKey("198.51.100")
            func ping(_ n: Int, message: String? = nil, establishment: Establishment = .immediate,
                      budget: Int = 0, network: [UInt8]? = nil) throws -> PendingCheckIn {
                let request = CheckInRequest(device: try DeviceID(udid(n)), position: offset(bologna, bearing: Double(n * 40), metres: 2),
                                             message: try message.map { try MessageText($0) })
                return PendingCheckIn(key: keyer.key(for: request.device), request: request, now: PresenceFixture.start,
                                      network: network, establishment: establishment,
                                      budgets: budget == 0 ? .unlimited : ClientBudgets(newDevices: budget), grids: .none)
            }
            let batch = [
                try ping(1),
                try ping(2, message: "too early", establishment: .standard),  // FL403: a new device may not post
                try ping(3, budget: 2, network: network),
                try ping(4, budget: 2, network: network),
                try ping(5, budget: 2, network: network),                     // FL429: the third new id of the network
                try ping(6, message: "hello"),
            ]
            let results = try await PresenceStore.write(batch, client: f.client, policy: .default, logger: TestCluster.logger)
            #expect(results.count == 6)
            #expect(try results[0].get().outcome == .founded)
            #expect(results[1] == .failure(.notEstablished))
            #expect(try results[2].get().outcome == .joined)
            #expect(try results[3].get().outcome == .joined)
            #expect(results[4] == .failure(.budget(retryAfter: 600)))
            let posted = try results[5].get()
            #expect(posted.messageID != nil)
            #expect(posted.place.stats.people == 4)

            // Exactly the kept pings were written: devices 1, 3, 4, 6, one place of four, one message.
            #expect(try await f.count("SELECT count(*)::int FROM device") == 4)
            for refused in [2, 5] {
                let key = ByteBuffer(bytes: keyer.key(for: try DeviceID(udid(refused))))
                let rows = try await f.client.query("SELECT count(*)::int FROM device WHERE device_key = \(key)", logger: TestCluster.logger).collect()
                #expect(try rows[0].decode(Int.self) == 0)
            }
            #expect(try await f.count("SELECT count(*)::int FROM message") == 1)
            #expect(try await f.count("SELECT coalesce(sum(people), 0)::int FROM place") == 4)
            #expect(try await f.store.invariantViolations().isEmpty)
        }
    }

    @Test func theSameDeviceTwiceInABatchIsTwoPingsInOrder() async throws {
        try await PresenceFixture.run { f in
            let request = CheckInRequest(device: try DeviceID(udid(7)), position: bologna)
            let moved = CheckInRequest(device: request.device, position: offset(bologna, bearing: 90, metres: 60))
            let batch = [request, moved].enumerated().map { i, r in
                PendingCheckIn(key: f.store.keyer.key(for: r.device), request: r, now: PresenceFixture.start.addingTimeInterval(Double(i * 60)),
                               network: nil, establishment: .immediate, budgets: .unlimited, grids: .none)
            }
            let results = try await PresenceStore.write(batch, client: f.client, policy: .default, logger: TestCluster.logger)
            // The second ping saw the first one's writes: it left the place the first founded.
            let (first, second) = (try results[0].get(), try results[1].get())
            #expect(first.outcome == .founded && second.outcome == .founded)
            #expect(second.previousPlaceID == first.place.id)
            #expect(try await f.count("SELECT count(*)::int FROM place WHERE people > 0") == 1)
        }
    }
}
