import FollaCore
import Foundation

/// A small append-only JSON writer for the read path's hot documents.
///
/// Foundation's JSONEncoder was most of the CPU of a clustered groups answer (it boxes
/// every number of every hull ring); writing the fixed shapes directly is several times
/// cheaper. Keys are written in the order given; callers keep them sorted.
struct JSONWriter {
    private(set) var text = ""

    init(capacity: Int = 1024) { text.reserveCapacity(capacity) }

    mutating func raw(_ s: String) { text += s }
    mutating func key(_ k: String) { text += "\""; text += k; text += "\":" }
    mutating func string(_ s: String) { text += jsonString(s) }
    mutating func number(_ d: Double) { text += d.isFinite ? "\(d)" : "null" }
    mutating func integer<I: BinaryInteger>(_ i: I) { text += "\(i)" }
    /// An integer, or null.
    mutating func integer(orNull i: Int64?) { if let i { integer(i) } else { null() } }
    mutating func bool(_ b: Bool) { text += b ? "true" : "false" }
    mutating func null() { text += "null" }
    mutating func date(_ d: Date) { text += "\""; text += d.iso8601(); text += "\"" }

    /// Writes `items` as a JSON array, each with `body`.
    mutating func array<S: Sequence>(_ items: S, _ body: (inout JSONWriter, S.Element) -> Void) {
        text += "["
        var first = true
        for item in items {
            if !first { text += "," }
            first = false
            body(&self, item)
        }
        text += "]"
    }

    /// Writes an object whose members are emitted by `body` through `member`.
    mutating func object(_ body: (inout ObjectWriter) -> Void) {
        var o = ObjectWriter(writer: self)
        text = ""
        o.writer.text += "{"
        body(&o)
        o.writer.text += "}"
        self = o.writer
    }

    struct ObjectWriter {
        var writer: JSONWriter
        private var first = true

        init(writer: JSONWriter) { self.writer = writer }

        mutating func member(_ key: String, _ value: (inout JSONWriter) -> Void) {
            if !first { writer.text += "," }
            first = false
            writer.key(key)
            value(&writer)
        }
    }
}
