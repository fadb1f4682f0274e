import NIOCore
import PostgresNIO

/// A one-dimensional PostgreSQL array whose elements may be NULL, decoded from the binary
/// format.
///
/// Hand-written because PostgresNIO's `Array` decoding refuses any array holding a NULL
/// (its elements are not optional), and the check-in batch's answer (SQL/0034) is one row
/// of arrays whose columns are NULL where a ping has no such value (a refusal's place, a
/// ping's message). Sentinels in SQL instead would put a second meaning on real values.
/// The format is PostgreSQL's `array_send`: dimensions, a has-nulls flag, the element
/// type, each dimension's size and lower bound, then each element as its length (-1 for
/// NULL) and its bytes.
struct NullableArray<Element: PostgresDecodable>: PostgresDecodable where Element._DecodableType == Element {
    /// The elements in order, nil for each NULL.
    var elements: [Element?]

    init<JSONDecoder: PostgresJSONDecoder>(from buffer: inout ByteBuffer, type: PostgresDataType, format: PostgresFormat,
                                           context: PostgresDecodingContext<JSONDecoder>) throws {
        guard format == .binary,
              let (dimensions, flags, elementOID) = buffer.readMultipleIntegers(endianness: .big, as: (Int32, Int32, UInt32).self),
              flags == 0 || flags == 1
        else { throw PostgresDecodingError.Code.failure }
        guard dimensions != 0 else {
            elements = []
            return
        }
        // Each element takes at least its 4-byte length: a count beyond that is malformed
        // (and would reserve memory for it before any element was read).
        guard dimensions == 1, let (count, _) = buffer.readMultipleIntegers(endianness: .big, as: (Int32, Int32).self),
              count >= 0, Int(count) <= buffer.readableBytes / 4
        else { throw PostgresDecodingError.Code.failure }
        let elementType = PostgresDataType(elementOID)
        var elements: [Element?] = []
        elements.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let length = buffer.readInteger(endianness: .big, as: Int32.self) else { throw PostgresDecodingError.Code.failure }
            if length == -1 {
                elements.append(nil)
                continue
            }
            guard length >= 0, var slice = buffer.readSlice(length: Int(length)) else { throw PostgresDecodingError.Code.failure }
            elements.append(try Element(from: &slice, type: elementType, format: format, context: context))
        }
        guard buffer.readableBytes == 0 else { throw PostgresDecodingError.Code.failure }
        self.elements = elements
    }
}
