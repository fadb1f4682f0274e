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
    }
}
