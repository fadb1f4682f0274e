import FollaCore
import Foundation
import Testing

/// `Group` shares one box among its copies (copy-on-write by hand): a copy changed in any
/// member must leave the group it was copied from as it was, since the read model's ready
/// groups are copied by every answer and cut or measured there.
@Suite struct GroupTests {
    /// A fresh group each call (its own box): a check against it compares members, never a
    /// box with itself. Every member set, so that a copy that dropped one would show.
    static func make() -> Group {
        var g = Group(
        id: 7, position: Coordinate(latitude: 44.49, longitude: 11.34), isCoarsened: false, distance: 0, bearing: 0,
        people: 5, stats: PublishedStats(reported: 3, averageAge: 31, male: 1, female: 2),
        lastActivity: Date(timeIntervalSince1970: 1_800_000_000), messageCount: 2,
        messages: [Message(id: 1, placeID: 7, text: "a", createdAt: Date(timeIntervalSince1970: 1_800_000_000)),
                   Message(id: 2, placeID: 7, text: "b", createdAt: Date(timeIntervalSince1970: 1_799_999_940))],
        memberPlaceIDs: [7], sources: [7],
        hull: [Coordinate(latitude: 44.49, longitude: 11.34), Coordinate(latitude: 44.491, longitude: 11.34),
               Coordinate(latitude: 44.49, longitude: 11.341), Coordinate(latitude: 44.49, longitude: 11.34)])
        g.encodings = EncodingMemo()
        return g
    }

    /// Each change of a copy, one member at a time.
    static let changes: [(String, @Sendable (inout Group) -> Void)] = [
        ("id", { $0.id = nil }),
        ("position", { $0.position = Coordinate(latitude: 1, longitude: 2) }),
        ("isCoarsened", { $0.isCoarsened = true }),
        ("people", { $0.people = 9 }),
        ("stats", { $0.stats = nil }),
        ("lastActivity", { $0.lastActivity = .distantPast }),
        ("messageCount", { $0.messageCount = 0 }),
        ("messages", { $0.messages.removeSubrange(1...) }),
        ("memberPlaceIDs", { $0.memberPlaceIDs.append(8) }),
        ("sources", { $0.sources = [] }),
        ("hull", { $0.hull = nil }),
        ("encodings", { $0.encodings = nil }),
        ("distance", { $0.distance = 12 }),
    ]

    @Test(arguments: changes.indices)
    func aChangedCopyLeavesTheOriginal(_ i: Int) {
        let (member, change) = Self.changes[i]
        let original = Self.make()
        var copy = original
        change(&copy)
        #expect(copy != original, "the change of \(member) did not take")
        #expect(original == Self.make(), "changing a copy's \(member) changed the original")
        // The copy kept every member it did not change: the same change made to a group that
        // shares its box with none.
        var alone = Self.make()
        change(&alone)
        #expect(copy == alone, "the copy changed in \(member) lost another member")
    }

    /// A copy of a copy, changed, leaves both before it as they were (the box is shared by three).
    @Test func aCopyOfACopy() {
        let a = Self.make()
        let b = a
        var c = b
        c.messages = []
        c.people = 1
        #expect(a == Self.make() && b == Self.make())
        #expect(c.messages.isEmpty && c.people == 1 && c.id == 7)
    }
}
