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
