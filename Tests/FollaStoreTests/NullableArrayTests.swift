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

    /// Malformed bytes are refused, not read past or trusted: a count larger than the bytes
    /// could hold (which would reserve memory for it first), a short buffer, a length below
    /// -1, and bytes left over.
    @Test func malformedArraysAreRefused() throws {
        func array(count: Int32, lengths: [Int32], trailing: Int = 0) -> ByteBuffer {
            var b = ByteBuffer()
            b.writeMultipleIntegers(Int32(1), Int32(0), PostgresDataType.int4.rawValue, count, Int32(1), endianness: .big)
            for length in lengths {
                b.writeInteger(length, endianness: .big)
                if length > 0 { b.writeInteger(Int32(5), endianness: .big) }
            }
            b.writeRepeatingByte(0, count: trailing)
            return b
        }
        func decode(_ buffer: ByteBuffer) throws -> [Int?] {
            var b = buffer
            return try NullableArray<Int>(from: &b, type: .int4Array, format: .binary, context: .default).elements
        }
        #expect(try decode(array(count: 2, lengths: [4, -1])) == [5, nil])
        #expect(throws: (any Error).self) { try decode(array(count: .max, lengths: [4])) }
        #expect(throws: (any Error).self) { try decode(array(count: 3, lengths: [4, 4])) }
        #expect(throws: (any Error).self) { try decode(array(count: 1, lengths: [-2])) }
        #expect(throws: (any Error).self) { try decode(array(count: 1, lengths: [4], trailing: 3)) }
    }
}
