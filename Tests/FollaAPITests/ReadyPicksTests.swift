import FollaCore
@testable import FollaServices
import Foundation
import Testing

/// A walk of the read model hands on picks, not groups (`ReadyPicks`): each pick's facts must
/// be its own group's, and what a walk found must stay as found after the model's lock is
/// released, whatever the model applies next.
@Suite struct ReadyPicksTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let centre = Coordinate(latitude: 44.4940, longitude: 11.3430)

    /// A place `metresNorth` and `metresEast` of the centre (300 m apart lie in other cells
    /// of the walk's grid, ~220 m × 160 m).
    static func place(_ id: Int64, people: Int, north: Double, east: Double = 0) -> LivePlace {
        let stats = PlaceStats(people: people, reporters: 0, ageSum: 0, male: 0, female: 0)
        let at = Coordinate(latitude: centre.latitude + north / 111_320,
                            longitude: centre.longitude + east / (111_320 * cos(centre.latitude * .pi / 180)))
        return LivePlace(id: id, anchor: at, stats: stats, lastActivity: now, messageCount: 0)
    }

    static func picked(_ model: PublishedPlaces, radius: Double = 1_500) throws -> ReadyPicks {
        var query = GroupQuery(centre: centre)
        query.radius = radius
        guard case let .ready(picks) = try #require(model.around(query, messagesByPlace: false)).found else {
            Issue.record("the read model answered entries, not ready groups")
            throw CancellationError()
        }
        return picks
    }

    /// Each pick, in the walk's order, carries its own group's position, people and id, and
    /// copies its own group: over several cells, with places of k or more and cells of
    /// smaller ones (no id).
    @Test func eachPickIsItsOwnGroup() throws {
        var model = PublishedPlaces(privacy: PrivacyPolicy(k: 3), messages: 10)
        // Places of 3–8 people and of 1–2 on a 300 m lattice: several cells, both kinds.
        var places: [LivePlace] = []
        for i in 0..<12 {
            let people: Int = i % 3 == 0 ? 1 + i % 2 : 3 + i % 6
            let north = Double(i / 4) * 300 - 300, east = Double(i % 4) * 300 - 450
            places.append(Self.place(Int64(i + 1), people: people, north: north, east: east))
        }
        model.apply(changed: places, gone: [], messages: [:], at: Self.now)
        let picks = try Self.picked(model)
        #expect(picks.count == 12)
        var cells = 0, placesSeen = 0
        for i in 0..<picks.count {
            let pick = picks.picks[i], ready = picks.group(i), copy = picks.copyOfGroup(i)
            #expect(pick.position == ready.entry.position && pick.people == ready.entry.people, "pick \(i)")
            #expect(pick.id == ready.entry.idIfPlace, "pick \(i)")
            #expect(copy.position == ready.group.position && copy.people == ready.group.people && copy.id == ready.group.id,
                    "pick \(i) copied another group")
            if pick.id == nil { cells += 1 } else { placesSeen += 1 }
        }
        #expect(cells > 0 && placesSeen > 0, "both cells and places must be picked (\(cells), \(placesSeen))")
        #expect(Set(picks.picks.map(\.position)).count == 12, "two picks named one group")
    }

    /// The picks of a walk keep their groups when the places change, leave, or others join
    /// the same cells afterwards (a change copies a held cell's array, not this one's).
    @Test func picksStayAsWalked() throws {
        var model = PublishedPlaces(privacy: PrivacyPolicy(k: 1), messages: 10)
        model.apply(changed: (1...6).map { Self.place($0, people: Int($0), north: Double($0) * 150 - 450) }, gone: [],
                    messages: [:], at: Self.now)
        let picks = try Self.picked(model)
        #expect(picks.count == 6)
        let before = (0..<picks.count).map { picks.group($0).entry.people }
        #expect(before.sorted() == [1, 2, 3, 4, 5, 6])

        // Every place changes its people, half leave, others join the same cells.
        model.apply(changed: (1...3).map { Self.place($0, people: 50, north: Double($0) * 150 - 450) }
                        + (7...9).map { Self.place($0, people: 70, north: Double($0 - 6) * 150 - 440) },
                    gone: [4, 5, 6], messages: [:], at: Self.now)
        #expect((0..<picks.count).map { picks.group($0).entry.people } == before, "a walk's picks changed with the model")
        #expect(picks.picks.map(\.people) == before)
        #expect((0..<picks.count).map { picks.copyOfGroup($0).people } == before)
        // The model itself moved on.
        let again = try Self.picked(model)
        #expect((0..<again.count).map { again.group($0).entry.people }.sorted() == [50, 50, 50, 70, 70, 70])
    }
}
