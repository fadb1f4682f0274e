import FollaStore
import FollaTestSupport
import PostgresNIO
import Testing

/// A stay rewrites its device's row in place (a HOT update, SQL/0015): no index of the
/// table holds a column it changes, so the indexes do not grow with every ping.
@Suite struct DeviceRowTests {
    @Test func aStayIsAHotUpdate() async throws {
        try await PresenceFixture.run { f in
            let logger = TestCluster.logger
            let checkIn = """
                SELECT outcome FROM folla_check_in(decode(repeat('cd', 32), 'hex'), 44.4938, 11.3430,
                                                   NULL, NULL, NULL, now() + make_interval(secs => $1), 10, 350)
                """
            // This backend's counts of the device table's updates and HOT updates (they may
            // hold earlier transactions' too, until flushed: compared before and after).
            let counts = "SELECT pg_stat_get_xact_tuples_updated('device'::regclass), pg_stat_get_xact_tuples_hot_updated('device'::regclass)"
            try await f.client.withConnection { c in
                // Arrival: the device's row is made and joins a place (place_id is indexed).
                _ = try await c.query(PostgresQuery(unsafeSQL: checkIn, binds: Self.binds(0)), logger: logger).collect()
                _ = try await c.query("BEGIN", logger: logger).collect()
                let before = try await c.query(PostgresQuery(unsafeSQL: counts), logger: logger).collect()[0].decode((Int, Int).self)
                for ping in 1...5 {
                    let rows = try await c.query(PostgresQuery(unsafeSQL: checkIn, binds: Self.binds(Double(ping * 20))), logger: logger).collect()
                    #expect(try rows[0].decode(String.self) == "stayed")
                }
                let after = try await c.query(PostgresQuery(unsafeSQL: counts), logger: logger).collect()[0].decode((Int, Int).self)
                _ = try await c.query("ROLLBACK", logger: logger).collect()
                #expect(after.0 - before.0 == 5, "one update of the device's row per ping")
                #expect(after.1 - before.1 == 5, "every stay a HOT update")
            }
        }
    }

    static func binds(_ seconds: Double) -> PostgresBindings {
        var b = PostgresBindings()
        b.append(seconds)
        return b
    }
}
