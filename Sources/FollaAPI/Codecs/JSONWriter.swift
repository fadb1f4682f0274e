import FollaCore
import Foundation

/// A small append-only JSON writer for the hot answers only: the groups answer as JSON
/// (`GroupsJSON`) and GeoJSON (`GroupsGeoJSON`) and the check-in answer (`CheckInJSON`),
/// which every request of the Bologna simulation gets, and the JSON log lines
/// (`JSONLogHandler`, see there). Every other answer goes through the one
/// `AnswerEncoder`; these three have `Encodable` twins that give the same JSON
/// (AnswerDocumentTests checks both against one literal).
///
/// Measured with `folla-codec-bench` (release, this 2-core box, 2026-11-23, three runs
/// while other builds ran; tools/bench/README.md), the same documents through the one
/// `JSONEncoder` and through this writer:
/// - groups JSON, 100 groups (34 clusters with a 20-point hull and 3 messages), 56.6 kB:
///   2.7–3.8 ms vs 0.26–0.33 ms a document, 9.0–11.6× (at the ~300 such answers a second
///   measured through HTTP, the encoder alone would take most of a core);
/// - the same groups as GeoJSON, 71.5 kB: 3.2–3.9 ms vs 0.33–0.37 ms, 9.3–11.0×;
/// - the check-in answer, 75 bytes: 2.8–3.9 µs vs 0.35–0.50 µs, 7.8–8.7× (about 1 % of a
///   check-in's 0.25 ms of server CPU).
/// A plain `JSONEncoder()` (no sorted keys, no date strategy) took 3.1 ms on the groups
/// document in one run, against 0.36 ms here: the cost is the encoder's, not our options.
///
/// Keys are written in the order given; callers keep them sorted. Bytes, not a String:
/// appending many short strings to a String was most of a groups answer's rendering (its
/// growth and UTF-8 bookkeeping per append, measured under the Bologna evening).
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []
    /// The last timestamp written and its text: most groups of an answer share one minute.
    private var lastDate: (time: Double, text: [UInt8])?

    /// The document as text.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    mutating func raw(_ s: String) { append(s) }
    /// A key of our own source, copied as it is (it needs no escaping).
    mutating func key(_ k: StaticString) {
        bytes.append(UInt8(ascii: "\""))
        k.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// The number as `Double.description` writes it (what `JSONEncoder` writes too).
    ///
    /// Answers round coordinates to 7 decimals and metres and degrees to 3, and a value that
    /// is exactly n / 10^7 (as such rounding leaves it) between 1e-4 and 1e8 has one shortest
    /// form, n's digits with trailing zeros dropped: written here from the integer, without
    /// `description`'s general algorithm and its String (those were ~5 % of a groups
    /// answer's CPU). Anything else goes through `description`; JSONWriterTests compares both.
    mutating func number(_ d: Double) {
        guard d.isFinite else { return null() }
        let magnitude = d.magnitude
        if magnitude >= 1e-4 && magnitude < 1e8 {
            let n = (d * 1e7).rounded()
            if n / 1e7 == d { return fixed(Int64(n)) }
        }
        append(d.description)
    }

    /// n / 10^7 with the fraction's trailing zeros dropped, at least one digit kept ("15.0").
    private mutating func fixed(_ n: Int64) {
        if n < 0 { bytes.append(UInt8(ascii: "-")) }
        let v = n.magnitude
        digits(v / 10_000_000)
        bytes.append(UInt8(ascii: "."))
        var fraction = v % 10_000_000, width = 7
        if fraction == 0 { return bytes.append(UInt8(ascii: "0")) }
        while fraction % 10 == 0 { fraction /= 10; width -= 1 }
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width))
        var i = start + width - 1
        while fraction > 0 {
            bytes[i] = UInt8(ascii: "0") + UInt8(fraction % 10)
            fraction /= 10
            i -= 1
        }
    }

    /// The decimal digits of `v`.
    private mutating func digits(_ v: UInt64) {
        if v >= 10 { digits(v / 10) }
        bytes.append(UInt8(ascii: "0") + UInt8(v % 10))
    }

    /// Written digit by digit: `description` made a String for every integer of an answer
    /// (ids, counts, place ids: a few hundred in a groups answer).
    mutating func integer<I: BinaryInteger>(_ i: I) {
        if i < 0 { bytes.append(UInt8(ascii: "-")) }
        digits(UInt64(i.magnitude))
    }

    mutating func integer(orNull i: Int64?) { if let i { integer(i) } else { null() } }
    mutating func bool(_ b: Bool) { literal(b ? "true" : "false") }
    mutating func null() { literal("null") }

    private mutating func literal(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }
    /// The one timestamp format of every answer: RFC 3339 in UTC, whole seconds.
    mutating func date(_ d: Date) {
        let time = d.timeIntervalSince1970
        let text: [UInt8]
        if let last = lastDate, last.time == time {
            text = last.text
        } else {
            text = Array(d.iso8601().utf8)
            lastDate = (time, text)
        }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: text)
        bytes.append(UInt8(ascii: "\""))
    }

    /// A JSON string literal with RFC 8259 escaping (JSONEncoder would also escape `/`);
    /// U+2028 and U+2029 are escaped too, for JavaScript readers.
    mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most texts need no escaping: copied at once when every byte is printable ASCII
        // other than the quote and the backslash.
        var plain = s
        let copied = plain.withUTF8 { utf8 in
            guard !utf8.contains(where: { $0 < 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if copied { return bytes.append(UInt8(ascii: "\"")) }
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

    /// An object's members without the braces around them, for `ObjectWriter.members` to
    /// copy into objects later.
    static func members(capacity: Int = 512, _ body: (inout ObjectWriter) -> Void) -> [UInt8] {
        var w = JSONWriter(capacity: capacity)
        w.object(body)
        return Array(w.bytes[1..<(w.bytes.count - 1)])
    }

    private mutating func append(_ s: String) {
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
    }

    struct ObjectWriter {
        var writer: JSONWriter
        private var first = true

        init(writer: JSONWriter) { self.writer = writer }

        mutating func member(_ key: StaticString, _ value: (inout JSONWriter) -> Void) {
            if !first { writer.bytes.append(UInt8(ascii: ",")) }
            first = false
            writer.key(key)
            value(&writer)
        }

        /// Members written earlier by `JSONWriter.members`, copied as they are.
        mutating func members(_ written: UnsafeBufferPointer<UInt8>) {
            guard !written.isEmpty else { return }
            if !first { writer.bytes.append(UInt8(ascii: ",")) }
            first = false
            writer.bytes.append(contentsOf: written)
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
