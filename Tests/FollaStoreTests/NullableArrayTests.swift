@testable import FollaStore
import FollaTestSupport
import PostgresNIO
import Testing

/// `NullableArray` reads PostgreSQL's arrays with NULLs in them, as the check-in batch's
/// answer holds them (SQL/0034), where PostgresNIO's own array decoding refuses them.
@Suite struct NullableArrayTests {
    @Test func arraysWithNullsDecodeInOrder() async throws {
        try await PresenceFixture.run { f in
            let rows = try await f.client.query("""
                SELECT ARRAY[7, NULL, 3]::int[] AS ints, ARRAY['x', NULL, 'zz']::text[] AS texts,
                       ARRAY[]::bigint[] AS empty, ARRAY[NULL, 2.5]::float8[] AS floats,
                       ARRAY[[1, 2], [3, 4]]::int[] AS matrix, NULL::int[] AS missing
                """, logger: TestCluster.logger).collect()
            let c = try #require(rows.first).makeRandomAccess()
            #expect(try c["ints"].decode(NullableArray<Int>.self).elements == [7, nil, 3])
            #expect(try c["texts"].decode(NullableArray<String>.self).elements == ["x", nil, "zz"])
            #expect(try c["empty"].decode(NullableArray<Int64>.self).elements.isEmpty)
            #expect(try c["floats"].decode(NullableArray<Double>.self).elements == [nil, 2.5])
            #expect(try c["missing"].decode(NullableArray<Int>?.self) == nil)
            // A matrix is not a list: refused, not read as one.
            #expect(throws: (any Error).self) { try c["matrix"].decode(NullableArray<Int>.self) }
        }
    }
}
