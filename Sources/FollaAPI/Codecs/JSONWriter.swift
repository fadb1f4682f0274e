import FollaCore
import Foundation

/// A small append-only JSON writer for the read path's hot documents.
///
/// Foundation's JSONEncoder was most of the CPU of a clustered groups answer (it boxes
/// every number of every hull ring); writing the fixed shapes directly is several times
/// cheaper. Keys are written in the order given; callers keep them sorted. Bytes, not a
/// String: appending many short strings to a String was most of a groups answer's
/// rendering (its growth and UTF-8 bookkeeping per append, measured under the Bologna
/// evening).
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []

    /// The document as text.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    mutating func raw(_ s: String) { append(s) }
    mutating func key(_ k: String) {
        bytes.append(UInt8(ascii: "\""))
        append(k)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }
    mutating func number(_ d: Double) { append(d.isFinite ? d.description : "null") }
    mutating func integer<I: BinaryInteger>(_ i: I) { append(i.description) }
    mutating func integer(orNull i: Int64?) { if let i { integer(i) } else { null() } }
    mutating func bool(_ b: Bool) { append(b ? "true" : "false") }
    mutating func null() { append("null") }
    /// The one timestamp format of every answer: RFC 3339 in UTC, whole seconds.
    mutating func date(_ d: Date) {
        bytes.append(UInt8(ascii: "\""))
        append(d.iso8601())
        bytes.append(UInt8(ascii: "\""))
    }

    /// A JSON string literal with RFC 8259 escaping (JSONEncoder would also escape `/`);
    /// U+2028 and U+2029 are escaped too, for JavaScript readers.
    mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": append("\\\"")
            case "\\": append("\\\\")
            case "\n": append("\\n")
            case "\r": append("\\r")
            case "\t": append("\\t")
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                append("\\u")
                let hex = Array("0123456789abcdef".utf8)
                for shift in stride(from: 12, through: 0, by: -4) { bytes.append(hex[Int(scalar.value >> UInt32(shift)) & 0xF]) }
            case _ where scalar.isASCII: bytes.append(UInt8(scalar.value))
            default: UTF8.encode(scalar) { bytes.append($0) }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func array<S: Sequence>(_ items: S, _ body: (inout JSONWriter, S.Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        var first = true
        for item in items {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            body(&self, item)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func object(_ body: (inout ObjectWriter) -> Void) {
        var o = ObjectWriter(writer: self)
        self = JSONWriter(capacity: 0)  // hands the buffer over uniquely, so appends do not copy it
        o.writer.bytes.append(UInt8(ascii: "{"))
        body(&o)
        o.writer.bytes.append(UInt8(ascii: "}"))
        self = o.writer
    }

    private mutating func append(_ s: String) {
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
    }

    struct ObjectWriter {
        var writer: JSONWriter
        private var first = true

        init(writer: JSONWriter) { self.writer = writer }

        mutating func member(_ key: String, _ value: (inout JSONWriter) -> Void) {
            if !first { writer.bytes.append(UInt8(ascii: ",")) }
            first = false
            writer.key(key)
            value(&writer)
        }

        /// A member whose key may need escaping (one not written in our source).
        mutating func member(escaping key: String, _ value: (inout JSONWriter) -> Void) {
            if !first { writer.bytes.append(UInt8(ascii: ",")) }
            first = false
            writer.string(key)
            writer.bytes.append(UInt8(ascii: ":"))
            value(&writer)
        }
    }
}
