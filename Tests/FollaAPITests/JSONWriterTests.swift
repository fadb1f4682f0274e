@testable import FollaAPI
import FollaCore
import Foundation
import Testing

/// The hand-written JSON writer's strings read back, through Foundation's parser, as the
/// text written: quotes, backslashes, control characters, line separators and non-ASCII.
@Suite struct JSONWriterTests {
    @Test func stringsRoundTripThroughAnIndependentParser() throws {
        let alphabet: [Unicode.Scalar] = ["a", "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}",
                                          "é", "€", "😀", "\u{301}", " "]
        var rng = SeededRandom(seed: 7)
        for _ in 0..<2000 {
            var s = String.UnicodeScalarView()
            for _ in 0..<Int(rng.next() % 12) { s.append(alphabet[Int(rng.next() % UInt64(alphabet.count))]) }
            let text = String(s)
            var w = JSONWriter()
            w.array([text]) { w, t in w.string(t) }
            let parsed = try JSONSerialization.jsonObject(with: Data(w.bytes)) as? [String]
            #expect(parsed == [text])
            #expect(!w.text.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{2028}" || $0 == "\u{2029}" })
        }
        // Printable ASCII (the copied-at-once path) with and without a quote or backslash.
        for i in 0..<2000 {
            var text = String((0..<Int(rng.next() % 40)).map { _ in Character(Unicode.Scalar(UInt8(0x20 + rng.next() % 95))) })
            if i % 3 == 0 { text += "\u{7F}" }
            var w = JSONWriter()
            w.array([text]) { w, t in w.string(t) }
            let parsed = try JSONSerialization.jsonObject(with: Data(w.bytes)) as? [String]
            #expect(parsed == [text])
        }
    }

    /// Integers are written as `description` writes them, at the edges of every width used.
    @Test func integersAreWrittenAsDescriptionWritesThem() {
        var rng = SeededRandom(seed: 13)
        var values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, .max, .min, .max - 1, .min + 1, Int64(Int32.max), Int64(Int32.min)]
        for _ in 0..<20_000 {
            values.append(Int64(bitPattern: rng.next()))
            values.append(Int64(rng.next() % 100_000) - 50_000)
        }
        for v in values {
            var w = JSONWriter()
            w.integer(v)
            w.integer(Int(v))
            #expect(w.text == v.description + v.description, "\(v)")
        }
    }

    /// Numbers are written exactly as `Double.description` writes them (the text every answer
    /// had before the integer path, and what `JSONEncoder` writes): values rounded to 7 and to
    /// 3 decimals, at the path's edges, and arbitrary doubles that must take the general path.
    @Test func numbersAreWrittenAsDescriptionWritesThem() {
        var rng = SeededRandom(seed: 11)
        var values: [Double] = [0, -0.0, 1e-4, 9.999e-5, 1e-7, -1e-7, 0.1 + 0.2, 1e8, 99_999_999.999, 1e8 - 1e-7, 15, -15, 180, -180,
                                44.4938, 11.343, 359.999, 0.001, 2.5e-5, .infinity, -.infinity, .nan, 1e300, 123_456.123_456_7]
        for _ in 0..<20_000 {
            let r = Double(rng.next() % 4_000_000_000) - 2_000_000_000
            values.append(GroupDTO.round(r / 1e7, 1e7))                  // coordinates
            values.append(GroupDTO.round(r / 1e4, 1000))                 // metres and degrees
            values.append(Double(bitPattern: rng.next()))                // anything at all
            values.append(Double(rng.next() % 1_000_000) * 1e-9)         // around the 1e-4 edge
        }
        for d in values {
            var w = JSONWriter()
            w.number(d)
            #expect(w.text == (d.isFinite ? d.description : "null"), "\(d.bitPattern)")
        }
    }
}
