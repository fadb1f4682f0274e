import FollaCore
import FollaStore
import FollaTestSupport
import PostgresNIO
import Testing

/// The check-in warm-up a server runs before it reports ready (`CheckInService.warmUp`):
/// every connection of the pool gets its first batch then, not under the first second's load.
@Suite struct WarmUpTests {
    static let preparedBatches = "SELECT count(*)::int FROM pg_prepared_statements WHERE statement LIKE '%folla_check_in_batch%'"

    @Test func everyConnectionRunsOneBatchAndNothingIsWritten() async throws {
        try await AppFixture.run(k: 3, maxConnections: 4) { f in
            let before = try await Self.rowsByTable(f.db)
            let outcomes = try await f.deps.checkIns.warmUp(connections: 4, within: .seconds(60))
            // The function's main paths, each planned by its first run.
            #expect(outcomes.map { try? $0.get().outcome } == [.founded, .joined, .stayed])
            #expect(try await Self.rowsByTable(f.db) == before)
            // The batch is prepared on all four connections (a warm-up that reached one of
            // them, as a few requests would, leaves the others at 0).
            let prepared = try await f.db.onEachConnection(count: 4, within: .seconds(60)) { connection, _ in
                let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT pg_backend_pid(), (\(Self.preparedBatches))"),
                                                      logger: TestCluster.logger).collect()
                return try rows[0].decode((Int, Int).self)
            }
            #expect(Set(prepared.map(\.0)).count == 4, "four different backends: \(prepared)")
            #expect(prepared.map(\.1) == [1, 1, 1, 1])
            // And none was left inside the warm-up's transaction.
            let open = try await f.db.query(
                "SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'",
                logger: TestCluster.logger).collect()[0].decode(Int.self)
            #expect(open == 0)
        }
    }

    /// Asked for more connections than the pool opens, the run ends at its limit (it does not
    /// wait for good), and gives back what it held.
    @Test func moreThanThePoolEndsAtTheLimitAndGivesTheConnectionsBack() async throws {
        try await AppFixture.run(maxConnections: 2) { f in
            let start = ContinuousClock.now
            await #expect(throws: EachConnectionTimedOut.self) {
                try await f.db.onEachConnection(count: 3, within: .milliseconds(500)) { _, _ in 1 }
            }
            #expect(ContinuousClock.now - start < .seconds(20))
            let again = try await f.db.onEachConnection(count: 2, within: .seconds(60)) { _, _ in 1 }
            #expect(again == [1, 1])
        }
    }

    /// Rows in every table of the schema, by name (what "nothing was written" is checked against).
    static func rowsByTable(_ db: PostgresClient) async throws -> [String: Int] {
        let rows = try await db.query("""
            SELECT table_name::text,
                   (xpath('/row/c/text()', query_to_xml(format('SELECT count(*) AS c FROM %I.%I', table_schema, table_name), false, true, '')))[1]::text::int
            FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
            """, logger: TestCluster.logger).collect()
        return Dictionary(uniqueKeysWithValues: try rows.map { try $0.decode((String, Int).self) })
    }
}
