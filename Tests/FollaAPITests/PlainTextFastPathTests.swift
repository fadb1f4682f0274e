@testable import FollaAPI
import FollaCore
import Foundation
import Testing

/// The plain-text fast paths give what the full passes give: `XMLWriter.escape` on text
/// with nothing to escape, and form components with nothing to decode.
@Suite struct PlainTextFastPathTests {
    @Test(arguments: [
        ("44.4938", "44.4938"), ("Ciao a tutti", "Ciao a tutti"),
        ("a & b < c > d \"e\" 'f'", "a &amp; b &lt; c &gt; d &quot;e&quot; &apos;f&apos;"),
        ("caffè ☕", "caffè ☕"), ("bell\u{7}\u{0}end", "bellend"), ("tab\tnew\nline", "tab\tnew\nline"),
        ("\u{FFFE}x", "x"), ("", ""),
        // The fast path's edges: 0x1F and 0x7F take the full pass, 0x20 and 0x7E do not need it.
        ("a\u{1F}b", "ab"), (" ~", " ~"), ("a\u{7F}b", "a\u{7F}b"),
    ])
    func xmlEscaping(text: String, escaped: String) {
        #expect(XMLWriter.escape(text) == escaped)
    }

    @Test func formComponentsDecodeOnlyWhereNeeded() throws {
        let fields = try FormFieldDecoder.decode(Data("udid=0A1B&latitude=44.4938&message=Ciao+a+tutti%21&t=%E2%82%AC&empty=".utf8))
        #expect(fields.values["udid"] == .string("0A1B"))
        #expect(fields.values["latitude"] == .string("44.4938"))
        #expect(fields.values["message"] == .string("Ciao a tutti!"))
        #expect(fields.values["t"] == .string("€"))
        #expect(fields.values["empty"] == .string(""))
        #expect(throws: Problem.self) { try FormFieldDecoder.decode(Data("a=%ZZ".utf8)) }
        #expect(throws: Problem.self) { try FormFieldDecoder.decode(Data("a=1&a=2".utf8)) }
    }
}
