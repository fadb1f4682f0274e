@testable import FollaAPI
import FollaCore
import Foundation
import Testing

/// The XML answers, byte for byte as before (`XMLWriter` stays their one writer; the
/// legacy tables are PostgreSQL's `query_to_xml` layout, which the original app reads).
@Suite struct XMLAnswerTests {
    typealias F = AnswerFixtures
    typealias G = AnswerGoldens

    @Test func groups() {
        #expect(GroupsXML.encode(GroupsDocument(query: F.query, groups: [F.g1, F.g2, F.g3])) == G.groupsXML)
        #expect(GroupsXML.encodeSingle(GroupDTO(F.g1)) == G.groupXML)
    }

    @Test func wallAndAtom() {
        #expect(WallXML.wall(F.wall) == G.wallXML)
        #expect(WallXML.atom(F.wall, selfPath: "/v1/venues/piazza/wall") == G.wallAtom)
    }

    @Test func legacyTables() {
        #expect(LegacyXML.places([F.g1, F.g2, F.g3]) == G.legacyPlaces)
        #expect(LegacyXML.messages([F.m1, F.m2]) == G.legacyMessages)
    }
}

/// The plain-text fast paths give what the full passes give: `XMLWriter.escape` on text
/// with nothing to escape, and form components with nothing to decode.
@Suite struct PlainTextFastPathTests {
    @Test(arguments: [
        ("44.4938", "44.4938"), ("Ciao a tutti", "Ciao a tutti"),
        ("a & b < c > d \"e\" 'f'", "a &amp; b &lt; c &gt; d &quot;e&quot; &apos;f&apos;"),
        ("caffè ☕", "caffè ☕"), ("bell\u{7}\u{0}end", "bellend"), ("tab\tnew\nline", "tab\tnew\nline"),
        ("\u{FFFE}x", "x"), ("", ""),
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
