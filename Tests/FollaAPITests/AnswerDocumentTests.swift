@testable import FollaAPI
import FollaCore
import FollaServices
import Foundation
import Testing

/// Every JSON answer type says what the hand-written writers said for the same values:
/// the same keys, the same nulls, the same numbers and strings (`AnswerGoldens`). The hot
/// answers still written by `JSONWriter` are checked both ways.
@Suite struct AnswerDocumentTests {
    typealias F = AnswerFixtures
    typealias G = AnswerGoldens

    static let k3 = PrivacyPolicy(k: 3, noiseKey: 0x5EED)
    static let k1 = PrivacyPolicy(k: 1)

    func expectSame(_ value: some Encodable, _ golden: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let encoded = try AnswerEncoder().encode(value)
        #expect(try JSONValue(encoded) == JSONValue(golden), "\(String(decoding: encoded, as: UTF8.self))", sourceLocation: sourceLocation)
    }

    func expectSame(writer bytes: [UInt8], _ golden: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try JSONValue(Data(bytes)) == JSONValue(golden), "\(String(decoding: bytes, as: UTF8.self))", sourceLocation: sourceLocation)
    }

    var document: GroupsDocument { GroupsDocument(query: F.query, groups: [F.g1, F.g2, F.g3]) }

    @Test func groups() throws {
        try expectSame(document, G.groupsDocument)
        try expectSame(writer: GroupsJSON.document(document), G.groupsDocument)
        try expectSame(GroupDTO(F.g1), G.group)
        try expectSame(writer: GroupsJSON.group(GroupDTO(F.g1)), G.group)
    }

    @Test func geoJSON() throws {
        try expectSame(GroupsFeatureCollection(document), G.featureCollection)
        try expectSame(writer: GroupsGeoJSON.encode(document), G.featureCollection)
    }

    /// A ready group's copies render their shared members once (`EncodingMemo`): every copy,
    /// whatever its distance, bearing and messages shown, must render as the same group
    /// without a memo, as JSON and as GeoJSON, in any order.
    @Test func readyGroupCopiesRenderAsFreshGroups() throws {
        for ready in [F.g1, F.g2, F.g3] {
            let memo = EncodingMemo()
            for (distance, bearing, shown) in [(12.5, 10.0, 2), (80.25, 200.0, 1), (12.5, 10.0, 0), (99.0, 359.5, 2), (7.0, 1.0, 1)] {
                var plain = ready
                plain.distance = distance
                plain.bearing = bearing
                plain.messages = Array(ready.messages.prefix(shown))
                var copy = plain
                copy.encodings = memo
                let fresh = GroupsDocument(query: F.query, groups: [plain, F.g2])
                let copied = GroupsDocument(query: F.query, groups: [copy, F.g2])
                #expect(GroupsJSON.document(copied) == GroupsJSON.document(fresh), "\(distance), \(shown) messages")
                #expect(GroupsGeoJSON.encode(copied) == GroupsGeoJSON.encode(fresh), "\(distance), \(shown) messages")
            }
        }
    }

    @Test func checkIns() throws {
        var noMessage = F.result
        noMessage.messageID = nil
        noMessage.established = false
        var moved = F.result
        moved.previousPlaceID = 3
        moved.place.stats = PlaceStats(people: 1, reporters: 0, ageSum: 0, male: 0, female: 0)
        var withGroups = CheckInDocument(Self.k3.answer(for: F.result), privacy: Self.k3)
        withGroups.groups = .found([GroupDTO(F.g1), GroupDTO(F.g2)])
        var failed = CheckInDocument(Self.k3.answer(for: F.result), privacy: Self.k3)
        failed.groups = .failed
        let cases: [(CheckInDocument, String)] = [
            (CheckInDocument(Self.k3.answer(for: F.result), privacy: Self.k3), G.checkIn),
            (CheckInDocument(Self.k3.answer(for: noMessage), privacy: Self.k3), G.checkInWithoutMessage),
            (CheckInDocument(Self.k1.answer(for: F.result), privacy: Self.k1), G.checkInOriginal),
            (CheckInDocument(Self.k1.answer(for: moved), privacy: Self.k1), G.checkInOriginalMoved),
            (withGroups, G.checkInWithGroups),
            (failed, G.checkInGroupsFailed),
        ]
        for (document, golden) in cases {
            try expectSame(document, golden)
            try expectSame(writer: CheckInJSON.encode(document), golden)
        }
    }

    @Test func walls() throws {
        try expectSame(WallDocument(F.wall), G.wall)
    }

    @Test func messages() throws {
        try expectSame(MessageDTO(F.m1), G.message)
        try expectSame(MessageDTO(F.m2), G.smallGroupMessage)
        let page = [F.m1, F.m2].map(MessageDTO.init)
        try expectSame(MessagePage(page, limit: 2), G.page)
        try expectSame(MessagePage(page, limit: 20), G.lastPage)
        try expectSame(MessagePage([], limit: 20), G.emptyPage)
    }

    @Test func venues() throws {
        try expectSame(VenueDocument(try VenueDefinition(slug: "piazza", name: "Piazza \"Maggiore\"", ring: F.hull)), G.venue)
    }

    @Test func problems() throws {
        try expectSame(Problem(.badRequest, type: "invalid-field", title: "Invalid request field",
                               detail: "lat must be a number \"x\"", field: "lat"), G.problem)
        try expectSame(Problem.notFound("no venue a/b"), G.problemWithoutField)
        #expect(try JSONValue(Data(buffer: Problem.notFound("no venue a/b").jsonBody())) == JSONValue(G.problemWithoutField))
    }

    /// The small acknowledgements, as the routes wrote them by hand.
    @Test func receipts() throws {
        try expectSame(ReportReceipt(hidden: false), #"{"hidden":false}"#)
        try expectSame(ReportReceipt(hidden: true), #"{"hidden":true}"#)
        try expectSame(ModerationReceipt(id: 12, hidden: true), #"{"id":12,"hidden":true}"#)
        try expectSame(HealthStatus(), #"{"status":"ok"}"#)
    }

    /// `/readyz` leaves unknown versions and a missing error out (as before: Foundation's
    /// encoder with snake_case keys).
    @Test func readiness() throws {
        let ready = ReadinessProbe.Status(ready: true, postgres: "15.8", postgis: "3.3.2", pendingMigrations: [], error: nil)
        try expectSame(ready, #"{"ready":true,"postgres":"15.8","postgis":"3.3.2","pending_migrations":[]}"#)
        let down = ReadinessProbe.Status(ready: false, pendingMigrations: ["0011_x.sql"], error: "database: unreachable")
        try expectSame(down, #"{"ready":false,"pending_migrations":["0011_x.sql"],"error":"database: unreachable"}"#)
    }
}
