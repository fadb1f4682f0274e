import FollaStore
import FollaTestSupport
import PostgresNIO
import Testing

/// The rows the database refuses (SQL/0018 folded each table's CHECK constraints into one,
/// for speed): every condition the separate constraints held is still held, and the rows
/// they let through still go through.
@Suite struct RowConstraintTests {
    /// A live place of three: two counted, one of them reporting (a man of 30).
    static let live = "people = 3, counted = 2, reporters = 1, male = 1, female = 0, age_sum = 30"

    @Test(arguments: [
        ("people >= 0 (also counted <= people)", "people = -1, counted = 0, reporters = 0, male = 0, age_sum = 0"),
        ("counted >= 0 (also reporters <= counted)", "counted = -1"),
        ("counted <= people", "counted = 4"),
        ("reporters <= counted", "reporters = 3, male = 3"),
        ("reporters <= people (also reporters <= counted)", "counted = 3, reporters = 4, male = 4"),
        ("reporters >= 0, male >= 0", "reporters = -1, male = -1"),
        ("reporters = male + female", "male = 2"),
        ("female >= 0", "male = 2, female = -1"),
        ("age_sum >= 0", "age_sum = -1"),
        ("a live place has an anchor", "anchor = NULL"),
    ])
    func aPlaceRowBreakingOneRuleIsRefused(rule: String, assignment: String) async throws {
        try await PresenceFixture.run(maxConnections: 2) { f in
            let id = try await Self.livePlace(f)
            try await Self.expectRefused(f, rule, "UPDATE place SET \(assignment) WHERE id = \(id)",
                                         unchanged: "SELECT format('%s %s %s %s %s %s %s', people, counted, reporters, male, female, age_sum, anchor IS NOT NULL) FROM place WHERE id = \(id)",
                                         is: "3 2 1 1 0 30 t")
        }
    }

    @Test func placeRowsWithinTheRulesGoThrough() async throws {
        try await PresenceFixture.run(maxConnections: 2) { f in
            let id = try await Self.livePlace(f)
            // Two women join, one reporting her age; the counted leave, two not yet counted
            // stay; then everyone leaves and the anchor goes.
            try await Self.run(f, "UPDATE place SET people = 5, counted = 4, reporters = 2, female = 1, age_sum = 55 WHERE id = \(id)")
            try await Self.run(f, "UPDATE place SET people = 2, counted = 0, reporters = 0, male = 0, female = 0, age_sum = 0 WHERE id = \(id)")
            try await Self.run(f, "UPDATE place SET people = 0, counted = 0, reporters = 0, male = 0, female = 0, age_sum = 0, anchor = NULL WHERE id = \(id)")
        }
    }

    @Test(arguments: [
        ("a key of 32 bytes", "device_key = decode(repeat('ab', 31), 'hex')"),
        ("age >= 13", "age = 12, sex = 1"),
        ("age <= 120", "age = 121, sex = 1"),
        ("sex is 1 or 2", "age = 30, sex = 3"),
        ("age and sex together", "age = 30, sex = NULL"),
        ("sex and age together", "age = NULL, sex = 2"),
        ("pings >= 0", "pings = -1"),
    ])
    func aDeviceRowBreakingOneRuleIsRefused(rule: String, assignment: String) async throws {
        try await PresenceFixture.run(maxConnections: 2) { f in
            try await Self.device(f)
            try await Self.expectRefused(f, rule, "UPDATE device SET \(assignment)",
                                         unchanged: "SELECT format('%s %s %s', age, sex, pings) FROM device", is: "30 1 0")
        }
    }

    @Test func deviceRowsWithinTheRulesGoThrough() async throws {
        try await PresenceFixture.run(maxConnections: 2) { f in
            try await Self.device(f)
            try await Self.run(f, "UPDATE device SET age = NULL, sex = NULL, pings = 7")
            try await Self.run(f, "UPDATE device SET age = 13, sex = 2")
            try await Self.run(f, "UPDATE device SET age = 120, sex = 1")
        }
    }

    static func livePlace(_ f: PresenceFixture) async throws -> Int64 {
        let id = try await run(f, """
            INSERT INTO place (anchor, created_at, last_activity)
            VALUES (ST_MakePoint(11.343, 44.4938)::geography, now(), now()) RETURNING id::text
            """)
        try await run(f, "UPDATE place SET \(live) WHERE id = \(id)")
        return Int64(id)!
    }

    static func device(_ f: PresenceFixture) async throws {
        try await run(f, """
            INSERT INTO device (device_key, position, last_seen, first_seen, age, sex)
            VALUES (decode(repeat('ab', 32), 'hex'), ST_MakePoint(11.343, 44.4938)::geography, now(), now(), 30, 1)
            """)
    }

    /// Expects `update` to fail its CHECK, and the row to read as before.
    static func expectRefused(_ f: PresenceFixture, _ rule: String, _ update: String, unchanged read: String,
                              is before: String) async throws {
        let error = await #expect(throws: PSQLError.self, "\(rule)") { try await run(f, update) }
        #expect(error?.serverInfo?[.sqlState] == "23514", "a check violation")
        #expect(try await run(f, read) == before)
    }

    /// Runs one statement; its first column of its first row as text, if it answers one.
    @discardableResult
    static func run(_ f: PresenceFixture, _ sql: String) async throws -> String {
        let rows = try await f.client.query(PostgresQuery(unsafeSQL: sql), logger: TestCluster.logger).collect()
        return try rows.first?.decode(String.self) ?? ""
    }
}
