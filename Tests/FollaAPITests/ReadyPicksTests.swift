import FollaCore
@testable import FollaServices
import Foundation
import Testing

/// A walk of the read model hands on picks, not groups (`ReadyPicks`): what it found must stay
/// as found after the model's lock is released, whatever the model applies next.
@Suite struct ReadyPicksTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let centre = Coordinate(latitude: 44.4940, longitude: 11.3430)

    static func place(_ id: Int64, people: Int, metresNorth: Double) -> LivePlace {
        let stats = PlaceStats(people: people, reporters: 0, ageSum: 0, male: 0, female: 0)
        let at = Coordinate(latitude: centre.latitude + metresNorth / 111_320, longitude: centre.longitude)
        return LivePlace(id: id, anchor: at, stats: stats, lastActivity: now, messageCount: 0)
    }

    static func picked(_ snapshot: NearbyPlaces.Snapshot?) throws -> ReadyPicks {
        guard case let .ready(picks) = try #require(snapshot).found else {
            Issue.record("the read model answered entries, not ready groups")
            throw CancellationError()
        }
        return picks
    }

    /// The picks of a walk keep their groups when the places change, leave, or others join
    /// the same cells afterwards (a change copies a held cell's array, not this one's).
    @Test func picksStayAsWalked() throws {
        var model = PublishedPlaces(privacy: PrivacyPolicy(k: 1), messages: 10)
        model.apply(changed: (1...6).map { Self.place($0, people: Int($0), metresNorth: Double($0) * 10) }, gone: [],
                    messages: [:], at: Self.now)
        let picks = try Self.picked(model.around(GroupQuery(centre: Self.centre), messagesByPlace: false))
        #expect(picks.count == 6)
        let before = (0..<picks.count).map { picks.group($0).entry.people }.sorted()
        #expect(before == [1, 2, 3, 4, 5, 6])

        // Every place changes its people, half leave, others join the same cells.
        model.apply(changed: (1...3).map { Self.place($0, people: 50, metresNorth: Double($0) * 10) }
                        + (7...9).map { Self.place($0, people: 70, metresNorth: Double($0) * 10) },
                    gone: [4, 5, 6], messages: [:], at: Self.now)
        let after = (0..<picks.count).map { picks.group($0).entry.people }.sorted()
        #expect(after == before, "a walk's picks changed with the model")
        #expect(picks.picks.map(\.people).sorted() == before)
        // The model itself moved on.
        let again = try Self.picked(model.around(GroupQuery(centre: Self.centre), messagesByPlace: false))
        #expect((0..<again.count).map { again.group($0).entry.people }.sorted() == [50, 50, 50, 70, 70, 70])
    }
}
