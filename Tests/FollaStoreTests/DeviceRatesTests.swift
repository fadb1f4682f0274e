import FollaCore
import FollaStore
import FollaTestSupport
import Foundation
import PostgresNIO
import Testing

/// The shared per-device limits: one window whatever the connection (the instance) asks.
@Suite struct DeviceRatesTests {
    static let keyer = try! DeviceKeyer(secret: "rates-test-secret-0123456789")
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func rates(_ client: PostgresClient) -> DeviceRates {
        DeviceRates(pool: DatabasePool(client), keyer: keyer, logger: TestCluster.logger)
    }

    /// Forty requests at once for one device, through two separate pools (two instances):
    /// exactly the limit get through.
    @Test func concurrentRequestsFromTwoPoolsShareOneLimit() async throws {
        try await TestCluster.withDatabase { client, location in
            var config = try location.configuration()
            config.options.maximumConnections = 10
            try await PostgresClient.with(config, logger: TestCluster.logger) { other in
                let pools = [Self.rates(client), Self.rates(other)]
                let device = try DeviceID("0123456789abcdef0123456789abcdef01234567")
                let allowed = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for i in 0..<40 {
                        group.addTask {
                            try await pools[i % 2].acquire(.messages, device: device, limit: 5, window: 600, at: Self.t0) == nil
                        }
                    }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                #expect(allowed == 5)
            }
        }
    }

    /// Windows of 600 s on the epoch's grid: t0 = 1 800 000 000 is a boundary (3 000 000 × 600).
    @Test func fixedWindowsAndRetryAfter() async throws {
        try await TestCluster.withDatabase { client, _ in
            let rates = Self.rates(client)
            let device = try DeviceID("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
            for s in [0.0, 100, 200] {
                #expect(try await rates.acquire(.reports, device: device, limit: 3, window: 600, at: Self.t0 + s) == nil)
            }
            // Full until the window ends at t0 + 600; refusals are not counted.
            #expect(try await rates.acquire(.reports, device: device, limit: 3, window: 600, at: Self.t0 + 450) == 150)
            #expect(try await rates.acquire(.reports, device: device, limit: 3, window: 600, at: Self.t0 + 599.5) == 1)
            // The next window starts afresh.
            for s in [600.0, 601, 1100] {
                #expect(try await rates.acquire(.reports, device: device, limit: 3, window: 600, at: Self.t0 + s) == nil)
            }
            #expect(try await rates.acquire(.reports, device: device, limit: 3, window: 600, at: Self.t0 + 1150) == 50)
            // Kinds are separate limits.
            #expect(try await rates.acquire(.messages, device: device, limit: 3, window: 600, at: Self.t0 + 1150) == nil)
            // Rows go once their window has ended (both end at t0 + 1200).
            #expect(try await rates.expire(at: Self.t0 + 1199) == 0)
            #expect(try await rates.expire(at: Self.t0 + 1200) == 2)
            #expect(try await rates.acquire(.reports, device: device, limit: 3, window: 600, at: Self.t0 + 1200) == nil)
        }
    }

    /// No stored time equals an event's: a row holds the window's end, not the request's time.
    @Test func noEventTimeIsStored() async throws {
        try await TestCluster.withDatabase { client, _ in
            let rates = Self.rates(client)
            let device = try DeviceID("cccccccccccccccccccccccccccccccccccccccc")
            let at = Self.t0 + 123.456
            _ = try await rates.acquire(.messages, device: device, limit: 3, window: 600, at: at)
            let rows = try await client.query("SELECT ends_at FROM device_rate", logger: TestCluster.logger).collect()
            #expect(try rows.map { try $0.decode(Date.self) } == [Self.t0 + 600])
        }
    }

    /// The counters cannot be joined to the device table (nor to each other).
    @Test func countersAreKeyedApartFromDevices() async throws {
        try await TestCluster.withDatabase { client, _ in
            let rates = Self.rates(client)
            let device = try DeviceID("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
            _ = try await rates.acquire(.messages, device: device, limit: 3, window: 600, at: Self.t0)
            _ = try await rates.acquire(.reports, device: device, limit: 3, window: 600, at: Self.t0)
            let deviceKey = ByteBuffer(bytes: Self.keyer.key(for: device))
            let rows = try await client.query(
                "SELECT count(DISTINCT key)::int, count(*) FILTER (WHERE key = \(deviceKey))::int FROM device_rate",
                logger: TestCluster.logger).collect()
            let (distinct, matchingDevice) = try rows[0].decode((Int, Int).self)
            #expect(distinct == 2)
            #expect(matchingDevice == 0)
        }
    }
}
