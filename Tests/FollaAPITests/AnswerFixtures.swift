import FollaCore
@testable import FollaServices
import Foundation

/// Fixed values for the answer codec tests: every optional both present and absent, text
/// that needs escaping, whole and fractional numbers, a hull.
enum AnswerFixtures {
    /// 2026-11-22T21:05:00Z.
    static let t0 = Date(timeIntervalSince1970: 1_795_381_500)

    static let m1 = Message(id: 41, placeID: 7, text: "ciao a/b \"tutti\" \\ è 😀\n\ttab", createdAt: t0)
    static let m2 = Message(id: 40, placeID: nil, text: "<b>&amp;</b>\u{1}", createdAt: t0.addingTimeInterval(-60))

    static let s1 = PublishedStats(reported: 3, averageAge: 27, male: 2, female: 1)
    static let s2 = PublishedStats(reported: 4, averageAge: nil, male: 0, female: 0)

    static let hull = [Coordinate(latitude: 44.49, longitude: 11.34), Coordinate(latitude: 44.49, longitude: 11.35),
                       Coordinate(latitude: 44.4912345678, longitude: 11.35), Coordinate(latitude: 44.49, longitude: 11.34)]

    /// A cluster with stats, two messages and a hull.
    static let g1 = Group(id: 7, position: Coordinate(latitude: 44.49381234567, longitude: 11.34304567891), isCoarsened: false,
                          distance: 12.34567, bearing: 45.5, people: 5, stats: s1, lastActivity: t0, messageCount: 2,
                          messages: [m1, m2], memberPlaceIDs: [7, 9], sources: [7, 9], hull: hull)
    /// A cell of small groups: no id, no stats, no messages, no hull.
    static let g2 = Group(id: nil, position: Coordinate(latitude: 44.494, longitude: 11.344), isCoarsened: true,
                          distance: 150, bearing: 0, people: 2, stats: nil, lastActivity: t0.addingTimeInterval(-120),
                          messageCount: 0, messages: [], memberPlaceIDs: [], sources: [], hull: nil)
    /// A place with withheld average age.
    static let g3 = Group(id: 12, position: Coordinate(latitude: 44.5, longitude: 11.3), isCoarsened: false,
                          distance: 1000.25, bearing: 180, people: 4, stats: s2, lastActivity: t0, messageCount: 1,
                          messages: [], memberPlaceIDs: [12], sources: [12], hull: nil)

    static var query: GroupQuery {
        var q = GroupQuery(centre: Coordinate(latitude: 44.4938, longitude: 11.343))
        q.radius = 200
        return q
    }

    static let result = CheckInResult(
        outcome: .joined, place: PlaceSnapshot(id: 7, anchor: Coordinate(latitude: 44.4938, longitude: 11.343),
                                               stats: PlaceStats(people: 5, reporters: 3, ageSum: 81, male: 2, female: 1)),
        previousPlaceID: nil, distanceToAnchor: 3.14159, messageID: 41, at: t0, established: true)

    static var wall: WallSnapshot {
        var w = WallSnapshot(id: "venue:piazza", title: "Piazza \"Maggiore\" & co", data: WallData(name: nil, entries: [], messages: []),
                             privacy: PrivacyPolicy(k: 3, noiseKey: 0x5EED))
        w.people = 7
        w.places = 2
        w.stats = s1
        w.busiest = [
            .init(placeID: 7, people: 5, position: Coordinate(latitude: 44.49381234567, longitude: 11.343), coarsened: false, stats: s1),
            .init(placeID: nil, people: 2, position: Coordinate(latitude: 44.494, longitude: 11.344), coarsened: true, stats: nil),
        ]
        w.messages = [m1, m2]
        w.updatedAt = t0
        return w
    }
}
