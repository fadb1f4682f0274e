import FollaStore
import FollaTestSupport
import PostgresNIO
import Testing

/// People arriving at a place move its counters in place (HOT updates, SQL/0016): no index
/// of the place table holds a column they change, so a busy place's row does not leave a
/// new entry in every index with each arrival. The read model still learns of the change,
/// through one `place_touch` per place and transaction.
@Suite struct PlaceRowTests {
    @Test func arrivalsAreHotUpdatesWithOneTouch() async throws {
        try await PresenceFixture.run { f in
            let logger = TestCluster.logger
            // The first device founds the place, committed; three more join it in one transaction.
            try await f.client.withConnection { c in
                _ = try await c.query(PostgresQuery(unsafeSQL: Self.checkIn, binds: Self.binds(device: 0)), logger: logger).collect()
                _ = try await c.query("BEGIN", logger: logger).collect()
                // This backend's counts of the place table's updates and HOT updates (they may
                // hold earlier transactions' too, until flushed: compared before and after).
                let counts = "SELECT pg_stat_get_xact_tuples_updated('place'::regclass), pg_stat_get_xact_tuples_hot_updated('place'::regclass)"
                let before = try await c.query(PostgresQuery(unsafeSQL: counts), logger: logger).collect()[0].decode((Int, Int).self)
                for device in 1...3 {
                    let rows = try await c.query(PostgresQuery(unsafeSQL: Self.checkIn, binds: Self.binds(device: device)), logger: logger).collect()
                    #expect(try rows[0].decode(String.self) == "joined")
                }
                let after = try await c.query(PostgresQuery(unsafeSQL: counts), logger: logger).collect()[0].decode((Int, Int).self)
                let touches = try await c.query("""
                    SELECT count(*)::int, count(DISTINCT place_id)::int FROM place_touch WHERE changed = pg_current_xact_id()
                    """, logger: logger).collect()[0].decode((Int, Int).self)
                _ = try await c.query("ROLLBACK", logger: logger).collect()
                #expect(after.0 - before.0 >= 3, "each arrival moves the place's counters")
                #expect(after.1 - before.1 == after.0 - before.0, "every update of the place's row HOT")
                #expect(touches.0 == 1 && touches.1 == 1, "one touch for the place in this transaction")
            }
        }
    }

    static let checkIn = """
        SELECT outcome FROM folla_check_in(decode(lpad(to_hex($1::int), 64, '0'), 'hex'), 44.4938, 11.3430,
                                           NULL, NULL, NULL, now(), 10, 350)
        """

    static func binds(device: Int) -> PostgresBindings {
        var b = PostgresBindings()
        b.append(device)
        return b
    }
}

/// Touches outlive the transactions that wrote them (SQL/0017): the sweeper's purge goes by
/// the oldest transaction running at an earlier sweep, not by when a touch was written, so
/// a transaction that commits after the retention still reaches the read models.
@Suite struct PlaceTouchTests {
    @Test func aLongTransactionsTouchOutlivesItsCommit() async throws {
        try await PresenceFixture.run(maxConnections: 4) { f in
            let logger = TestCluster.logger
            // With no retention: what may go is bounded only by the marks of earlier sweeps.
            let purge = {
                _ = try await f.client.query(PlaceChanges.purgeSQL(retention: .zero), logger: logger).collect()
                try await Task.sleep(for: .milliseconds(20))
            }
            _ = try await f.client.query(PostgresQuery(unsafeSQL: PlaceRowTests.checkIn, binds: PlaceRowTests.binds(device: 0)),
                                         logger: logger).collect()
            let xid = try await f.client.withConnection { c in
                _ = try await c.query("BEGIN", logger: logger).collect()
                _ = try await c.query(PostgresQuery(unsafeSQL: PlaceRowTests.checkIn, binds: PlaceRowTests.binds(device: 1)),
                                      logger: logger).collect()
                let xid = try await c.query("SELECT pg_current_xact_id()::text", logger: logger).collect()[0].decode(String.self)
                // Sweeps while the transaction runs (its touch written long "ago").
                try await purge()
                try await purge()
                _ = try await c.query("COMMIT", logger: logger).collect()
                return xid
            }
            let touches = "SELECT count(*)::int FROM place_touch WHERE changed = '\(xid)'::xid8"
            let count = { try await f.client.query(PostgresQuery(unsafeSQL: touches), logger: logger).collect()[0].decode(Int.self) }
            try await purge()
            #expect(try await count() == 1, "a touch committed just now stays for the readers")
            // Once a mark taken after the commit is older than the retention, the touch goes:
            // at the next sweep alone, later while another test's transaction in this cluster
            // holds the horizon back (the horizon is the cluster's, not the database's).
            let deadline = ContinuousClock.now + .seconds(20)
            repeat { try await purge() } while try await count() > 0 && ContinuousClock.now < deadline
            #expect(try await count() == 0, "and goes once every reader has had its time")
        }
    }
}
